// The IncidentBook's bookkeeping: repeats fold, clears and mails move an incident along, one batch per commit,
// and a commit beside another execution's newer copy adds up instead of overwriting.
import { describe, expect, it } from 'vitest';
import { computeHealth } from '../../../src/core/triage/health';
import { IncidentBook, incidentKey, INCIDENT_HISTORY_KEY, MAX_DETAIL_CHARS, DAILY_SUMMARY_SENT_KEY } from '../../../src/core/triage/incidents';
import type { Incident } from '../../../src/core/triage/incidents';
import { API_KEY } from './fakes';
import { MemoryProperties } from '../memory-ports';
import { HOUR, MINUTE, queueRow, T0 } from '../fakes/rows';


class Clock {
  constructor(public at: number) {}
  now = (): number => this.at;
}

function book(props: MemoryProperties, at: number, knownSecrets: string[] = []): IncidentBook {
  return new IncidentBook(props, new Clock(at), { knownSecrets });
}

function stored(props: MemoryProperties, code: Incident['code']): Incident {
  return JSON.parse(props.values[incidentKey(code)]) as Incident;
}

describe('raise', () => {
  it('folds repeats: every raise counts, each execution counts one run, rows merge in order', () => {
    const props = new MemoryProperties();
    const first = book(props, T0);
    first.raise('SHEETS_UNAVAILABLE', 'one', [9, 3]);
    first.raise('SHEETS_UNAVAILABLE', 'two', [3, 5, -1, 2.5]);
    expect(first.get('SHEETS_UNAVAILABLE')).toMatchObject({ count: 2, runs: 1, rows: [3, 5, 9], rowCount: 3, detail: 'two', firstSeen: T0, lastSeen: T0 });
    first.commit();
    const second = book(props, T0 + MINUTE);
    second.raise('SHEETS_UNAVAILABLE', '');
    expect(second.get('SHEETS_UNAVAILABLE')).toMatchObject({ count: 3, runs: 2, firstSeen: T0, lastSeen: T0 + MINUTE, detail: 'two' });
  });

  it('row numbers that are not rows (negative, fractional) are not counted as affected rows', () => {
    const b = book(new MemoryProperties(), T0);
    b.raise('ROWS_NEED_A_PERSON', 'x', [2]);
    b.raise('ROWS_NEED_A_PERSON', 'x', [2, -1, 2.5, 0]);
    expect(b.get('ROWS_NEED_A_PERSON')).toMatchObject({ rows: [2], rowCount: 1 });
  });

  it('the row count never falls below the number of rows reported at once', () => {
    const b = book(new MemoryProperties(), T0);
    b.raise('ROWS_NEED_A_PERSON', 'x', [2]);
    b.raise('ROWS_NEED_A_PERSON', 'x', [4, 4, 5]);
    expect(b.get('ROWS_NEED_A_PERSON')?.rowCount).toBe(3);
  });

  it('the detail is redacted and cut to MAX_DETAIL_CHARS', () => {
    const b = book(new MemoryProperties(), T0, [API_KEY]);
    b.raise('CODE_BUG', `${API_KEY} ${'z'.repeat(3000)}`);
    const detail = b.get('CODE_BUG')?.detail ?? '';
    expect(detail).not.toContain(API_KEY);
    expect(detail.startsWith('[redacted] zz')).toBe(true);
    expect(detail).toHaveLength(MAX_DETAIL_CHARS);
  });

  it('a cleared incident raised again before its recovery mail is open again, the same incident', () => {
    const b = book(new MemoryProperties(), T0);
    b.raise('SHEETS_UNAVAILABLE', 'x');
    b.clear('SHEETS_UNAVAILABLE');
    b.raise('SHEETS_UNAVAILABLE', 'y');
    expect(b.get('SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open', clearedAt: null, count: 2 });
    expect(b.openIncidents().map((i) => i.code)).toEqual(['SHEETS_UNAVAILABLE']);
  });
});

describe('clear', () => {
  it('an incident staff were never told of and never would be (a passing rate limit) is dropped, not kept for a recovery mail', () => {
    const props = new MemoryProperties();
    const b = book(props, T0);
    b.raise('GEMINI_RATE_LIMITED', '429');
    b.commit();
    const later = book(props, T0 + MINUTE);
    later.clear('GEMINI_RATE_LIMITED');
    expect(later.all()).toEqual([]);
    later.commit();
    expect(props.values[incidentKey('GEMINI_RATE_LIMITED')]).toBeUndefined();
    expect(props.calls.delete).toBe(1);
    expect(later.recentHistory()).toEqual([]);
  });

  it('keeps the first clear time, adds caught-up counts, ignores counts that are not positive, and writes nothing when nothing is new', () => {
    const clock = new Clock(T0);
    const props = new MemoryProperties();
    const b = new IncidentBook(props, clock);
    b.raise('SHEETS_UNAVAILABLE', 'x');
    b.clear('SHEETS_UNAVAILABLE', { 'rows queued': 0 });
    expect(b.get('SHEETS_UNAVAILABLE')).toMatchObject({ state: 'cleared', clearedAt: T0 });
    expect(b.get('SHEETS_UNAVAILABLE')?.caughtUp).toBeUndefined();
    b.commit();
    clock.at = T0 + MINUTE;
    b.clear('SHEETS_UNAVAILABLE', { 'rows queued': 2, 'replies sent': -1 });
    b.clear('SHEETS_UNAVAILABLE', { 'rows queued': 1 });
    expect(b.get('SHEETS_UNAVAILABLE')).toMatchObject({ clearedAt: T0, caughtUp: { 'rows queued': 3 } });
    b.commit();
    b.clear('SHEETS_UNAVAILABLE');
    expect(b.hasChanges()).toBe(false);
  });

  it('keeps at most six kinds of caught-up counts, adding to the ones it has', () => {
    const b = book(new MemoryProperties(), T0);
    b.raise('SHEETS_UNAVAILABLE', 'x');
    b.clear('SHEETS_UNAVAILABLE', { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1 });
    b.clear('SHEETS_UNAVAILABLE', { g: 1, a: 2 });
    expect(b.get('SHEETS_UNAVAILABLE')?.caughtUp).toEqual({ a: 3, b: 1, c: 1, d: 1, e: 1, f: 1 });
  });

  it('clearing an incident that is not there does nothing', () => {
    const b = book(new MemoryProperties(), T0);
    b.clear('CODE_BUG', { x: 1 });
    expect(b.hasChanges()).toBe(false);
  });
});

describe('markMailed', () => {
  it('a first mail or reminder is stamped and counted; a recovery mail ends the incident into the history', () => {
    const props = new MemoryProperties();
    const clock = new Clock(T0);
    const b = new IncidentBook(props, clock);
    b.raise('SHEETS_UNAVAILABLE', 'x');
    b.markMailed('SHEETS_UNAVAILABLE', 'first');
    b.markMailed('SHEETS_UNAVAILABLE', 'reminder', T0 + 5);
    expect(b.get('SHEETS_UNAVAILABLE')).toMatchObject({ lastMailedAt: T0 + 5, mailsSent: 2 });
    b.commit();
    clock.at = T0 + HOUR;
    b.clear('SHEETS_UNAVAILABLE');
    b.markMailed('SHEETS_UNAVAILABLE', 'recovery');
    b.markMailed('CODE_BUG', 'first'); // nothing to mark
    b.commit();
    expect(props.values[incidentKey('SHEETS_UNAVAILABLE')]).toBeUndefined();
    expect(JSON.parse(props.values[INCIDENT_HISTORY_KEY])).toEqual([{ code: 'SHEETS_UNAVAILABLE', firstSeen: T0, clearedAt: T0 + HOUR, count: 1 }]);
    expect(book(props, T0 + HOUR).recentHistory()).toHaveLength(1);
  });

  it('the history keeps two days and at most 40 entries', () => {
    const props = new MemoryProperties();
    const old = Array.from({ length: 45 }, (_, i) => ({ code: 'CODE_BUG', firstSeen: T0 - HOUR, clearedAt: T0 - i * MINUTE, count: 1 }));
    props.values[INCIDENT_HISTORY_KEY] = JSON.stringify([{ code: 'CODE_BUG', firstSeen: 0, clearedAt: T0 - 49 * HOUR, count: 1 }, ...old]);
    const b = book(props, T0);
    b.raise('SHEETS_UNAVAILABLE', 'x');
    b.markMailed('SHEETS_UNAVAILABLE', 'first');
    b.clear('SHEETS_UNAVAILABLE');
    b.markMailed('SHEETS_UNAVAILABLE', 'recovery');
    b.commit();
    const history = JSON.parse(props.values[INCIDENT_HISTORY_KEY]) as { code: string; clearedAt: number }[];
    expect(history).toHaveLength(40);
    expect(history.at(-1)?.code).toBe('SHEETS_UNAVAILABLE');
    expect(history.every((entry) => T0 - entry.clearedAt <= 48 * HOUR)).toBe(true);
  });
});

describe('commit', () => {
  it('writes everything in one setMany, and nothing at all when nothing changed', () => {
    const props = new MemoryProperties();
    const b = book(props, T0);
    expect(b.hasChanges()).toBe(false);
    b.commit();
    expect(props.calls.setMany).toBe(0);
    b.raise('CODE_BUG', 'x');
    b.raise('SHEETS_UNAVAILABLE', 'y');
    b.markDailySummarySent('2025-06-01');
    expect(b.hasChanges()).toBe(true);
    b.commit();
    expect(props.calls.setMany).toBe(1);
    expect(props.values[DAILY_SUMMARY_SENT_KEY]).toBe('2025-06-01');
    expect(b.hasChanges()).toBe(false);
    expect(book(props, T0).lastDailySummaryDate()).toBe('2025-06-01');
  });

  it('beside another execution that wrote meanwhile: counts add, times widen, mail marks never go back', () => {
    const props = new MemoryProperties();
    const seed = book(props, T0);
    seed.raise('SHEETS_UNAVAILABLE', 'x', [4]);
    seed.commit();
    const mine = book(props, T0 + 2 * MINUTE);
    const theirs = book(props, T0 + MINUTE);
    theirs.raise('SHEETS_UNAVAILABLE', 'theirs', [2]);
    theirs.raise('SHEETS_UNAVAILABLE', 'theirs', [3]);
    theirs.markMailed('SHEETS_UNAVAILABLE', 'first', T0 + MINUTE);
    theirs.commit();
    mine.raise('SHEETS_UNAVAILABLE', 'mine', [5]);
    mine.commit({ ...props.values });
    expect(stored(props, 'SHEETS_UNAVAILABLE')).toMatchObject({
      count: 4, runs: 3, firstSeen: T0, lastSeen: T0 + 2 * MINUTE, rows: [2, 3, 4, 5], rowCount: 4,
      lastMailedAt: T0 + MINUTE, mailsSent: 1, detail: 'mine',
    });
  });

  it('beside another execution, a code not raised here adds no run', () => {
    const props = new MemoryProperties();
    const seed = book(props, T0);
    seed.raise('SHEETS_UNAVAILABLE', 'x');
    seed.commit();
    const mine = book(props, T0 + MINUTE);
    const theirs = book(props, T0 + MINUTE);
    theirs.raise('SHEETS_UNAVAILABLE', 'again');
    theirs.commit();
    mine.markMailed('SHEETS_UNAVAILABLE', 'first', T0 + 2 * MINUTE);
    mine.commit({ ...props.values });
    expect(stored(props, 'SHEETS_UNAVAILABLE')).toMatchObject({ count: 2, runs: 2, lastMailedAt: T0 + 2 * MINUTE, mailsSent: 1 });
  });
});

describe('the remembered health', () => {
  const health = (at: number) => computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: at - HOUR })], at);

  it('is kept for runs that cannot read the queue, readable healths only', () => {
    const props = new MemoryProperties();
    const b = book(props, T0);
    b.rememberHealth({ ...health(T0), readable: false });
    expect(b.hasChanges()).toBe(false);
    b.rememberHealth(health(T0));
    expect(b.hasChanges()).toBe(true);
    expect(b.lastKnownHealth(T0)?.counts.PENDING).toBe(1);
    b.commit();
    expect(book(props, T0 + MINUTE).lastKnownHealth()?.countedAt).toBe(T0);
  });

  it('unchanged figures are rewritten only after 15 minutes; changed figures at once', () => {
    const props = new MemoryProperties();
    const first = book(props, T0);
    first.rememberHealth(health(T0));
    first.commit();
    const soon = book(props, T0 + 14 * MINUTE);
    soon.rememberHealth({ ...health(T0), countedAt: T0 + 14 * MINUTE, checkedAt: T0 + 14 * MINUTE });
    expect(soon.hasChanges()).toBe(false);
    soon.rememberHealth(computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - HOUR }), queueRow('FAILED', { rowNumber: 3 })], T0 + 14 * MINUTE));
    expect(soon.hasChanges()).toBe(true);
    const later = book(props, T0 + 15 * MINUTE);
    later.rememberHealth({ ...health(T0), countedAt: T0 + 15 * MINUTE, checkedAt: T0 + 15 * MINUTE });
    expect(later.hasChanges()).toBe(true);
  });
});
