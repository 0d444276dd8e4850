// The run's watches on the whole picture, called directly: which Typeform look decides WEBHOOK_DISABLED.
import { describe, expect, it } from 'vitest';
import { watchSideConditions } from '../../../src/core/runs/tick-watches';
import type { TickPorts } from '../../../src/core/runs/tick-ports';
import { WEBHOOK_WATCH_PROPERTY, type FormWatch } from '../../../src/core/reconcile/webhook-watch';
import { TYPEFORM_CHECK_PROPERTY } from '../../../src/core/reconcile/check-record';
import { computeHealth } from '../../../src/core/triage/health';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { HOUR_MS } from '../../../src/core/domain/time';
import { FakeClock, fixedRandom, MemoryMailer, MemoryProperties, T0 } from '../memory-ports';

const ISO = (ms: number) => new Date(ms).toISOString();

function ports(clock: FakeClock): TickPorts {
  return {
    props: new MemoryProperties(),
    clock,
    random: fixedRandom(0.5),
    mailer: new MemoryMailer(),
    spill: { size: () => 0, count: () => 0 },
    openWorkspace: () => {
      throw new Error('the watches open no spreadsheet');
    },
    dateKey: () => '2026-11-20',
    warn: () => undefined,
  };
}

/** The 15-minute webhook watch's record (reconcile/webhook-watch.ts). */
const watch = (at: number, unhealthy: FormWatch[]) =>
  JSON.stringify({ at, unhealthy, reenabled: [], errors: [], lastHealthyAt: null, recoverFrom: null, lastRecoveryAt: null, recovered: 0 });
/** The daily Typeform check's record (reconcile/check-record.ts). */
const check = (at: number, disabled: string[]) =>
  JSON.stringify({ at, since: '2026-11-19 06:00', until: '2026-11-20 06:00', recovered: 0, tokens: [], disabled, errors: [], complete: true });

/** WEBHOOK_DISABLED after the watches ran on `snapshot`, with an incident already open before (detail "earlier"). */
function webhookIncident(snapshot: Record<string, string>): { state: string; detail: string } | undefined {
  const clock = new FakeClock();
  const p = ports(clock);
  const book = new IncidentBook(p.props, clock, { properties: {} });
  book.raise('WEBHOOK_DISABLED', 'earlier');
  watchSideConditions(book, p, { health: computeHealth([], T0), nextDueAt: null, sheetsConfigured: true }, snapshot, T0);
  const found = book.get('WEBHOOK_DISABLED');
  return found && { state: found.state, detail: found.detail };
}

describe('WEBHOOK_DISABLED: the newer of the webhook watch and the Typeform check decides', () => {
  const F1_DISABLED: FormWatch[] = [{ formId: 'F1', health: 'disabled' }];
  const watchSays = (at: number) => `the Typeform webhook of form F1 (disabled) (watch ${ISO(at)})`;
  const checkSays = (at: number) => `the Typeform webhook of form F2 is disabled or missing (Typeform check ${ISO(at)})`;

  it.each<[string, Record<string, string>, { state: string; detail: string }]>([
    ['a watch alone that finds a webhook disabled raises it in its words', { [WEBHOOK_WATCH_PROPERTY]: watch(T0 - HOUR_MS, F1_DISABLED) }, { state: 'open', detail: watchSays(T0 - HOUR_MS) }],
    ['a watch alone that finds every webhook healthy clears it', { [WEBHOOK_WATCH_PROPERTY]: watch(T0 - HOUR_MS, []) }, { state: 'cleared', detail: 'earlier' }],
    [
      'a healthy watch newer than a check that found one disabled clears it',
      { [WEBHOOK_WATCH_PROPERTY]: watch(T0 - HOUR_MS, []), [TYPEFORM_CHECK_PROPERTY]: check(T0 - 2 * HOUR_MS, ['F2']) },
      { state: 'cleared', detail: 'earlier' },
    ],
    [
      'a healthy watch made at the same time as the check decides (it clears)',
      { [WEBHOOK_WATCH_PROPERTY]: watch(T0 - HOUR_MS, []), [TYPEFORM_CHECK_PROPERTY]: check(T0 - HOUR_MS, ['F2']) },
      { state: 'cleared', detail: 'earlier' },
    ],
    [
      'an unhealthy watch newer than a check that found none disabled raises it in the watch\'s words',
      { [WEBHOOK_WATCH_PROPERTY]: watch(T0 - HOUR_MS, F1_DISABLED), [TYPEFORM_CHECK_PROPERTY]: check(T0 - 2 * HOUR_MS, []) },
      { state: 'open', detail: watchSays(T0 - HOUR_MS) },
    ],
    [
      'a check newer than the watch decides, in its own words',
      { [WEBHOOK_WATCH_PROPERTY]: watch(T0 - 2 * HOUR_MS, F1_DISABLED), [TYPEFORM_CHECK_PROPERTY]: check(T0 - HOUR_MS, ['F2']) },
      { state: 'open', detail: checkSays(T0 - HOUR_MS) },
    ],
    ['a check alone that found one disabled raises it', { [TYPEFORM_CHECK_PROPERTY]: check(T0 - HOUR_MS, ['F2']) }, { state: 'open', detail: checkSays(T0 - HOUR_MS) }],
  ])('%s', (_name, snapshot, expected) => {
    expect(webhookIncident(snapshot)).toEqual(expected);
  });
});
