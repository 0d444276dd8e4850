// SpillStore port: deliveries kept in Script Properties, gzip + base64, chunked under the 9 KB value limit.
import { codedError } from '../core/errors';
import { SPILL_LIMIT_CHARS } from '../core/intake/intake';
import type { SpillStore, SpilledDelivery } from '../core/ports';
import { SPILL_KEY_PREFIX } from '../core/tick-gate';

const PREFIX = SPILL_KEY_PREFIX;
/** Properties hold 9 KB per value (see docs/platform.md#quotas); base64 is ASCII, so characters are bytes. */
const PART_CHARS = 8000;

function encode(body: string): string {
  return Utilities.base64Encode(Utilities.gzip(Utilities.newBlob(body, 'application/json')).getBytes());
}

function decode(base64: string): string {
  return Utilities.ungzip(Utilities.newBlob(Utilities.base64Decode(base64), 'application/x-gzip')).getDataAsString('UTF-8');
}

/** Keys look like FQ_SPILL_<receivedAt, 13 digits>-<random>_<part>_<parts>, so sorting them gives arrival order. */
function parseKey(key: string): { id: string; part: number; parts: number } | null {
  const match = /^FQ_SPILL_(\d{13}-[0-9a-f]{8})_(\d+)_(\d+)$/.exec(key);
  return match ? { id: match[1], part: Number(match[2]), parts: Number(match[3]) } : null;
}

export function createSpillStore(): SpillStore {
  const props = PropertiesService.getScriptProperties();
  const spillEntries = (all: Record<string, string>) => Object.keys(all).filter((key) => key.startsWith(PREFIX));
  const sizeOf = (all: Record<string, string>) => spillEntries(all).reduce((sum, key) => sum + key.length + all[key].length, 0);
  return {
    save(receivedAt, body) {
      const encoded = encode(body);
      const all = props.getProperties();
      if (sizeOf(all) + encoded.length > SPILL_LIMIT_CHARS) {
        throw codedError('SPILL_FULL', `the spill in Script Properties is full (${SPILL_LIMIT_CHARS} characters)`);
      }
      const id = `${String(receivedAt).padStart(13, '0')}-${Utilities.getUuid().replace(/-/g, '').slice(0, 8)}`;
      const parts = Math.max(1, Math.ceil(encoded.length / PART_CHARS));
      const values: Record<string, string> = {};
      for (let part = 0; part < parts; part++) values[`${PREFIX}${id}_${part + 1}_${parts}`] = encoded.slice(part * PART_CHARS, (part + 1) * PART_CHARS);
      // One call writes every part, so a half-written entry is not left behind by a crash between parts.
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
          deliveries.push({ id, receivedAt: Number(id.slice(0, 13)), body: decode(stored) });
        } catch (error) {
          // One damaged entry must not stop the drain of the others; the drain keeps it in Rejected.
          deliveries.push({ id, receivedAt: Number(id.slice(0, 13)), body: stored, unreadable: String((error as Error)?.message ?? error) });
        }
      }
      return deliveries;
    },
    remove(id) {
      const all = props.getProperties();
      for (const key of spillEntries(all)) if (parseKey(key)?.id === id) props.deleteProperty(key);
    },
    size() {
      return sizeOf(props.getProperties());
    },
    count() {
      const ids = new Set(spillEntries(props.getProperties()).map((key) => parseKey(key)?.id));
      ids.delete(undefined);
      return ids.size;
    },
  };
}
