// SpillStore port: deliveries kept in Script Properties, gzip + base64, chunked under the 9 KB value limit.
import { codedError } from '../core/domain/failures/errors';
import { SPILL_LIMIT_CHARS } from '../core/intake/intake';
import { packForSpill, unpackSpilled } from '../core/intake/spill-format';
import type { SpillStore, SpilledDelivery } from '../core/domain/ports';
import { SPILL_KEY_PREFIX } from '../core/domain/queue/tick-gate';

const PREFIX = SPILL_KEY_PREFIX;
/** A form definition shared by spilled entries (not a delivery: the tick gate and the counts do not see it). */
const DEFINITION_PREFIX = 'FQ_SPILLDEF_';
/** Properties hold 9 KB per value (see docs/platform.md#quotas); base64 is ASCII, so characters are bytes. */
const PART_CHARS = 8000;

function encode(text: string): string {
  return Utilities.base64Encode(Utilities.gzip(Utilities.newBlob(text, 'application/json')).getBytes());
}

function decode(base64: string): string {
  return Utilities.ungzip(Utilities.newBlob(Utilities.base64Decode(base64), 'application/x-gzip')).getDataAsString('UTF-8');
}

/** A definition's name: 64 bits of its SHA-256 in hex (a collision would need 2^32 different forms). */
function definitionKey(text: string): string {
  const digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, text, Utilities.Charset.UTF_8);
  return digest
    .slice(0, 8)
    .map((byte) => ((byte + 256) % 256).toString(16).padStart(2, '0'))
    .join('');
}

/**
 * Keys look like FQ_SPILL_<receivedAt, 13 digits>-<random>_<part>_<parts>[_<definition key>], so sorting them gives
 * arrival order, and which definitions are still needed is known from the keys alone.
 */
function parseKey(key: string): { id: string; part: number; parts: number; definition: string | null } | null {
  const match = /^FQ_SPILL_(\d{13}-[0-9a-f]{8})_(\d+)_(\d+)(?:_([0-9a-f]{16}))?$/.exec(key);
  return match ? { id: match[1], part: Number(match[2]), parts: Number(match[3]), definition: match[4] ?? null } : null;
}

/**
 * What a save writes besides the entry's parts: the definition shared by the form's entries, written with every
 * entry that needs it (same key, same text) in the same call. `suffix` names it in the entry's keys.
 */
function packedValues(receivedAt: number, body: string): { values: Record<string, string>; encoded: string; suffix: string } {
  const packed = packForSpill(body, definitionKey);
  if (packed.definition) {
    const definition = `${receivedAt}:${encode(packed.definition.text)}`;
    if (definition.length <= PART_CHARS) {
      return { values: { [`${DEFINITION_PREFIX}${packed.definition.key}`]: definition }, encoded: encode(packed.entry), suffix: `_${packed.definition.key}` };
    }
  }
  return { values: {}, encoded: encode(body), suffix: '' };
}

const spillEntries = (all: Record<string, string>) => Object.keys(all).filter((key) => key.startsWith(PREFIX));
const definitions = (all: Record<string, string>) => Object.keys(all).filter((key) => key.startsWith(DEFINITION_PREFIX));
const sizeOf = (all: Record<string, string>) => [...spillEntries(all), ...definitions(all)].reduce((sum, key) => sum + key.length + all[key].length, 0);

export function createSpillStore(): SpillStore {
  const props = PropertiesService.getScriptProperties();
  /** Definitions no entry names any more; one just rewritten by a concurrent save is left (its value changed). */
  const prune = (all: Record<string, string>) => {
    const needed = new Set(spillEntries(all).map((key) => parseKey(key)?.definition));
    for (const key of definitions(all)) {
      if (needed.has(key.slice(DEFINITION_PREFIX.length))) continue;
      if (props.getProperty(key) === all[key]) props.deleteProperty(key);
    }
  };
  return {
    save(receivedAt, body) {
      const { values, encoded, suffix } = packedValues(receivedAt, body);
      const all = props.getProperties();
      const added = encoded.length + Object.keys(values).filter((key) => all[key] === undefined).reduce((sum, key) => sum + key.length + values[key].length, 0);
      if (sizeOf(all) + added > SPILL_LIMIT_CHARS) {
        throw codedError('SPILL_FULL', `the spill in Script Properties is full (${SPILL_LIMIT_CHARS} characters)`);
      }
      const id = `${String(receivedAt).padStart(13, '0')}-${Utilities.getUuid().replace(/-/g, '').slice(0, 8)}`;
      const parts = Math.max(1, Math.ceil(encoded.length / PART_CHARS));
      for (let part = 0; part < parts; part++) values[`${PREFIX}${id}_${part + 1}_${parts}${suffix}`] = encoded.slice(part * PART_CHARS, (part + 1) * PART_CHARS);
      // One call writes every part and the definition, so a crash cannot leave half an entry or an entry without it.
      props.setProperties(values);
    },
    list() {
      const all = props.getProperties();
      const byId = new Map<string, { parts: number; pieces: string[] }>();
      for (const key of spillEntries(all)) {
        const parsed = parseKey(key);
        if (!parsed) continue;
        const entry = byId.get(parsed.id) ?? { parts: parsed.parts, pieces: [] };
        entry.pieces[parsed.part - 1] = all[key];
        byId.set(parsed.id, entry);
      }
      const deliveries: SpilledDelivery[] = [];
      for (const id of Array.from(byId.keys()).sort()) {
        const entry = byId.get(id)!;
        const complete = entry.pieces.filter((piece) => piece !== undefined).length === entry.parts;
        if (!complete) continue;
        const stored = entry.pieces.join('');
        try {
          const unpacked = unpackSpilled(decode(stored), (key) => {
            const value = all[`${DEFINITION_PREFIX}${key}`];
            return value === undefined ? null : decode(value.slice(value.indexOf(':') + 1));
          });
          if (unpacked.ok) deliveries.push({ id, receivedAt: Number(id.slice(0, 13)), body: unpacked.body });
          else deliveries.push({ id, receivedAt: Number(id.slice(0, 13)), body: unpacked.rest, unreadable: unpacked.reason });
        } catch (error) {
          // One damaged entry must not stop the drain of the others; the drain keeps it in Rejected.
          deliveries.push({ id, receivedAt: Number(id.slice(0, 13)), body: stored, unreadable: String((error as Error)?.message ?? error) });
        }
      }
      return deliveries;
    },
    remove(id) {
      const all = props.getProperties();
      for (const key of spillEntries(all)) {
        if (parseKey(key)?.id !== id) continue;
        props.deleteProperty(key);
        delete all[key];
      }
      prune(all);
    },
    size() {
      return sizeOf(props.getProperties());
    },
    count() {
      return countOf(props.getProperties());
    },
  };
}

function countOf(all: Record<string, string>): number {
  const ids = new Set(spillEntries(all).map((key) => parseKey(key)?.id));
  ids.delete(undefined);
  return ids.size;
}

/**
 * The spill's size and count as processQueue reports them after its run: both from one read of the properties,
 * taken at the first question (they are asked milliseconds apart, after the drain), instead of one read each.
 */
export function spillFigures(): { size(): number; count(): number } {
  let all: Record<string, string> | null = null;
  const read = () => (all ??= PropertiesService.getScriptProperties().getProperties());
  return { size: () => sizeOf(read()), count: () => countOf(read()) };
}
