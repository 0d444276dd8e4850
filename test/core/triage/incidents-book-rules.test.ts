// IncidentBook details case by case: what an earlier run left (priorOpen), what commit writes and when, and the merge beside a newer copy.
import { describe, expect, it } from 'vitest';
import { computeHealth } from '../../../src/core/triage/health';
import { HEALTH_SNAPSHOT_KEY } from '../../../src/core/triage/health-snapshot';
import { IncidentBook, incidentKey, INCIDENT_HISTORY_KEY, DAILY_SUMMARY_SENT_KEY, type Incident, type IncidentHistoryEntry } from '../../../src/core/triage/incidents';
import { FakeClock, MemoryProperties } from '../memory-ports';
import { HOUR, MINUTE, queueRow, T0 } from '../fakes/rows';
import { WEBHOOK_TOKEN } from './fakes';

/** Records what each setMany wrote. */
class RecordingProperties extends MemoryProperties {
  writes: Record<string, string>[] = [];
  override setMany(values: Record<string, string>): void {
    this.writes.push({ ...values });
    super.setMany(values);
  }
}

const stored = (overrides: Partial<Incident>): Incident => ({
  code: 'CODE_BUG', firstSeen: T0 - HOUR, lastSeen: T0 - HOUR, count: 2, runs: 2, rows: [4], rowCount: 3, detail: 'earlier',
  lastMailedAt: null, mailsSent: 0, state: 'open', clearedAt: null, ...overrides,
});

function propsWith(...incidents: Incident[]): RecordingProperties {
  const props = new RecordingProperties();
  for (const incident of incidents) props.values[incidentKey(incident.code)] = JSON.stringify(incident);
  return props;
}

const book = (props: MemoryProperties, at = T0, knownSecrets?: string[]) => new IncidentBook(props, new FakeClock(at), knownSecrets ? { knownSecrets } : {});
const rowsFrom = (start: number, n: number) => Array.from({ length: n }, (_, i) => start + i);

describe('what earlier runs left', () => {
  it('priorOpen: the runs and row count of an incident open when this run began, not what this run added', () => {
    const b = book(propsWith(stored({ code: 'GEMINI_UNAVAILABLE', runs: 3, rowCount: 5 }), stored({ code: 'SHEETS_UNAVAILABLE', state: 'cleared', clearedAt: T0 - MINUTE })));
    b.raise('GEMINI_UNAVAILABLE', 'again', [9]);
    b.raise('CODE_BUG', 'new');
    expect(b.priorOpen('GEMINI_UNAVAILABLE')).toEqual({ runs: 3, rowCount: 5 });
    expect(b.priorOpen('SHEETS_UNAVAILABLE')).toBeNull();
    expect(b.priorOpen('CODE_BUG')).toBeNull();
    expect(b.priorOpen('GEMINI_DAILY_QUOTA')).toBeNull();
  });

  it('openIncidents leaves out the cleared ones', () => {
    const b = book(propsWith(stored({ code: 'CODE_BUG' }), stored({ code: 'SHEETS_UNAVAILABLE', state: 'cleared', clearedAt: T0 - MINUTE })));
    expect(b.openIncidents().map((i) => i.code)).toEqual(['CODE_BUG']);
    expect(b.all().map((i) => i.code).sort()).toEqual(['CODE_BUG', 'SHEETS_UNAVAILABLE']);
  });

  it('the last daily summary date is "" until one was sent', () => {
    expect(book(new MemoryProperties()).lastDailySummaryDate()).toBe('');
    const props = new MemoryProperties();
    props.values[DAILY_SUMMARY_SENT_KEY] = '2025-05-31';
    expect(book(props).lastDailySummaryDate()).toBe('2025-05-31');
  });

  it('recentHistory is a copy: changing it changes nothing in the book', () => {
    const props = new MemoryProperties();
    const entry: IncidentHistoryEntry = { code: 'CODE_BUG', firstSeen: T0 - HOUR, clearedAt: T0 - MINUTE, count: 1 };
    props.values[INCIDENT_HISTORY_KEY] = JSON.stringify([entry]);
    const b = book(props);
    b.recentHistory().pop();
    expect(b.recentHistory()).toEqual([entry]);
  });
});

describe('raise', () => {
  it('keeps the lowest 100 rows and counts them all, on the first raise and on a repeat', () => {
    const b = book(new MemoryProperties());
    b.raise('ROWS_NEED_A_PERSON', 'x', rowsFrom(2, 150));
    expect(b.get('ROWS_NEED_A_PERSON')).toMatchObject({ rows: rowsFrom(2, 100), rowCount: 150 });
    b.raise('ROWS_NEED_A_PERSON', 'x', rowsFrom(1000, 150));
    expect(b.get('ROWS_NEED_A_PERSON')).toMatchObject({ rows: rowsFrom(2, 100), rowCount: 250 });
  });

  it('strips the known secrets from the detail; without any, the patterns still apply', () => {
    const withSecrets = book(new MemoryProperties(), T0, [WEBHOOK_TOKEN]);
    withSecrets.raise('CODE_BUG', `bad token ${WEBHOOK_TOKEN}`);
    expect(withSecrets.get('CODE_BUG')?.detail).toBe('bad token [redacted]');
    const plain = book(new MemoryProperties());
    plain.raise('CODE_BUG', 'url ?key=abc123');
    expect(plain.get('CODE_BUG')?.detail).toBe('url ?key=[redacted]');
  });
});

describe('clear', () => {
  it('an incident staff were mailed about is kept for its recovery mail even if its rule would no longer mail it', () => {
    // A rate limit mailed under an earlier, looser rule: runs 1 would not be notifiable today.
    const b = book(propsWith(stored({ code: 'GEMINI_RATE_LIMITED', runs: 1, firstSeen: T0, lastSeen: T0, mailsSent: 1, lastMailedAt: T0 })), T0 + MINUTE);
    b.clear('GEMINI_RATE_LIMITED');
    expect(b.get('GEMINI_RATE_LIMITED')).toMatchObject({ state: 'cleared', clearedAt: T0 + MINUTE });
  });

  it.each<[string, Record<string, number>, boolean]>([
    ['nothing', {}, false],
    ['a zero count', { 'replies sent': 0 }, false],
    ['one caught up', { 'replies sent': 1 }, true],
  ])('clearing an already cleared incident with %s: written again = %s', (_, caughtUp, writes) => {
    const b = book(propsWith(stored({ state: 'cleared', clearedAt: T0 - MINUTE, mailsSent: 1 })));
    b.clear('CODE_BUG', caughtUp);
    expect(b.hasChanges()).toBe(writes);
  });
});

describe('hasChanges', () => {
  it.each<[string, (b: IncidentBook) => void, boolean]>([
    ['nothing done', () => undefined, false],
    ['a raise', (b) => b.raise('CODE_BUG', 'x'), true],
    ['only a removal (a passing rate limit cleared)', (b) => b.clear('GEMINI_RATE_LIMITED'), true],
    ['only the daily summary marked', (b) => b.markDailySummarySent('2025-06-01'), true],
    ['only a new health snapshot', (b) => b.rememberHealth(computeHealth([queueRow('PENDING')], T0)), true],
  ])('%s: %s', (_, act, changed) => {
    const b = book(propsWith(stored({ code: 'GEMINI_RATE_LIMITED', runs: 1, firstSeen: T0, lastSeen: T0 })));
    act(b);
    expect(b.hasChanges()).toBe(changed);
  });
});

describe('commit', () => {
  it('writes only the incidents this run changed', () => {
    const props = propsWith(stored({ code: 'CODE_BUG' }), stored({ code: 'SHEETS_UNAVAILABLE' }));
    const b = book(props);
    b.raise('CODE_BUG', 'again');
    b.commit();
    expect(props.writes.map((w) => Object.keys(w))).toEqual([[incidentKey('CODE_BUG')]]);
  });

  it('keeps resolved incidents in the history for 48 hours, to the millisecond', () => {
    const props = propsWith(stored({ code: 'SHEETS_UNAVAILABLE', state: 'cleared', clearedAt: T0 - HOUR }));
    const old = (clearedAt: number): IncidentHistoryEntry => ({ code: 'CODE_BUG', firstSeen: clearedAt - HOUR, clearedAt, count: 1 });
    props.values[INCIDENT_HISTORY_KEY] = JSON.stringify([old(T0 - 48 * HOUR - 1), old(T0 - 48 * HOUR)]);
    const b = book(props);
    b.markMailed('SHEETS_UNAVAILABLE', 'recovery');
    b.commit();
    expect(JSON.parse(props.values[INCIDENT_HISTORY_KEY])).toEqual([
      old(T0 - 48 * HOUR),
      { code: 'SHEETS_UNAVAILABLE', firstSeen: T0 - HOUR, clearedAt: T0 - HOUR, count: 2 },
    ]);
  });

  it('a second commit of the same book does not write the history again', () => {
    const props = propsWith(stored({ code: 'SHEETS_UNAVAILABLE', state: 'cleared', clearedAt: T0 - HOUR }));
    const b = book(props);
    b.markMailed('SHEETS_UNAVAILABLE', 'recovery');
    b.commit();
    b.raise('CODE_BUG', 'x');
    b.commit();
    expect(props.writes.map((w) => Object.keys(w))).toEqual([[INCIDENT_HISTORY_KEY], [incidentKey('CODE_BUG')]]);
  });

  it('a commit without a new health snapshot keeps the one read at the start', () => {
    const props = new MemoryProperties();
    props.values[HEALTH_SNAPSHOT_KEY] = (() => {
      const first = book(props);
      first.rememberHealth(computeHealth([queueRow('PENDING')], T0 - HOUR));
      first.commit();
      return props.values[HEALTH_SNAPSHOT_KEY];
    })();
    const b = book(props);
    b.raise('CODE_BUG', 'x');
    b.commit();
    expect(b.lastKnownHealth(T0)?.counts.PENDING).toBe(1);
  });

  it('after a commit, the same figures a minute later are not written again', () => {
    const b = book(new MemoryProperties());
    b.rememberHealth(computeHealth([queueRow('PENDING')], T0));
    b.commit();
    b.rememberHealth(computeHealth([queueRow('PENDING')], T0 + MINUTE));
    expect(b.hasChanges()).toBe(false);
  });
});

describe('commit beside a newer copy written by another execution', () => {
  it('takes the earlier first sighting, keeps the lowest 100 rows of both, and no mail mark when neither mailed', () => {
    const props = new MemoryProperties();
    const b = book(props);
    b.raise('CODE_BUG', 'mine', rowsFrom(200, 80));
    const theirs = stored({ firstSeen: T0 - 2 * HOUR, rows: rowsFrom(2, 80), rowCount: 80 });
    b.commit({ [incidentKey('CODE_BUG')]: JSON.stringify(theirs) });
    expect(JSON.parse(props.values[incidentKey('CODE_BUG')])).toMatchObject({
      firstSeen: T0 - 2 * HOUR, rows: [...rowsFrom(2, 80), ...rowsFrom(200, 20)], rowCount: 160, lastMailedAt: null,
    });
  });
});
