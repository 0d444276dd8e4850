import { describe, expect, it } from 'vitest';
import { INCIDENT_CODES } from '../../../src/core/domain/failures/codes';
import { IncidentBook, MAX_ROWS_KEPT, incidentFromJson, incidentKey, incidentToJson } from '../../../src/core/triage/incidents';
import { utf8Length } from '../../../src/core/domain/text';
import { API_KEY, runOnce } from './fakes';
import { FakeClock, MemoryProperties } from '../memory-ports';
import { MINUTE, T0 } from '../fakes/rows';

const NINE_KB = 9 * 1024;

describe('incident folding', () => {
  it('ten raises over ten runs fold into one incident with count 10 and one first mail', () => {
    const props = new MemoryProperties();
    const mails = [];
    for (let i = 0; i < 10; i++) {
      const plan = runOnce(props, T0 + i * MINUTE, (book) => book.raise('SHEETS_UNAVAILABLE', 'Exception: Error code INTERNAL'));
      mails.push(...plan.sent);
    }
    const stored = incidentFromJson(props.values[incidentKey('SHEETS_UNAVAILABLE')]);
    expect(stored).toMatchObject({ count: 10, runs: 10, firstSeen: T0, lastSeen: T0 + 9 * MINUTE, state: 'open', mailsSent: 1 });
    expect(mails.map((mail) => mail.kind)).toEqual(['first']);
  });

  it('several raises in one run count each raise but one run', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => {
      book.raise('GEMINI_KEY_INVALID', '403', [5]);
      book.raise('GEMINI_KEY_INVALID', '403', [6]);
      book.raise('GEMINI_KEY_INVALID', '403', [5]);
    });
    expect(incidentFromJson(props.values[incidentKey('GEMINI_KEY_INVALID')])).toMatchObject({ count: 3, runs: 1, rows: [5, 6], rowCount: 2 });
  });

  it('keeps the latest detail, redacted, and merges affected rows across runs', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('CODE_BUG', `TypeError at ?key=${API_KEY}`, [9, 3]));
    runOnce(props, T0 + MINUTE, (book) => book.raise('CODE_BUG', 'TypeError: x is undefined', [3, 12]));
    const stored = incidentFromJson(props.values[incidentKey('CODE_BUG')]);
    expect(stored?.rows).toEqual([3, 9, 12]);
    expect(stored?.detail).toBe('TypeError: x is undefined');
    expect(JSON.stringify(props.values)).not.toContain(API_KEY);
  });

  it('a detail with a secret never reaches the stored property', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('GEMINI_KEY_INVALID', `API key not valid: ${API_KEY}`));
    expect(props.values[incidentKey('GEMINI_KEY_INVALID')]).not.toContain(API_KEY);
    expect(props.values[incidentKey('GEMINI_KEY_INVALID')]).toContain('API key not valid');
  });
});

describe('incident storage size', () => {
  it('stays under 9 KB per property with 10,000 affected rows and a huge detail, keeping the count', () => {
    const props = new MemoryProperties();
    const rows = Array.from({ length: 10_000 }, (_, i) => i + 2);
    runOnce(props, T0, (book) => book.raise('ROWS_NEED_A_PERSON', 'é'.repeat(20_000), rows));
    runOnce(props, T0 + MINUTE, (book) => book.raise('ROWS_NEED_A_PERSON', 'again', rows));
    for (const value of Object.values(props.values)) expect(utf8Length(value)).toBeLessThan(NINE_KB);
    const stored = incidentFromJson(props.values[incidentKey('ROWS_NEED_A_PERSON')]);
    expect(stored?.rows).toHaveLength(MAX_ROWS_KEPT);
    expect(stored?.rowCount).toBe(10_000);
  });

  it('shrinks any incident to fit, whatever its fields hold', () => {
    const json = incidentToJson({
      code: 'CODE_BUG',
      firstSeen: T0,
      lastSeen: T0,
      count: 1,
      runs: 1,
      rows: Array.from({ length: 5000 }, (_, i) => 1_000_000 + i),
      rowCount: 5000,
      detail: '漢'.repeat(5000),
      lastMailedAt: null,
      mailsSent: 0,
      state: 'open',
      clearedAt: null,
    });
    expect(utf8Length(json)).toBeLessThan(NINE_KB);
    expect(incidentFromJson(json)?.rowCount).toBe(5000);
  });

  it('drops an unreadable stored value instead of failing the run', () => {
    const props = new MemoryProperties();
    props.values[incidentKey('CODE_BUG')] = '{not json';
    const book = new IncidentBook(props, new FakeClock(T0));
    expect(book.all()).toEqual([]);
  });
});

describe('batched writes', () => {
  it('a run that raises several incidents persists them with one setMany', () => {
    const props = new MemoryProperties();
    const book = new IncidentBook(props, new FakeClock(T0), { properties: {} });
    book.raise('SHEETS_UNAVAILABLE', 'INTERNAL');
    book.raise('SPILL_BACKLOG', '3 deliveries', []);
    book.raise('CODE_BUG', 'boom');
    expect(props.calls).toEqual({ getAll: 0, get: 0, set: 0, setMany: 0, delete: 0 });
    book.commit();
    expect(props.calls).toEqual({ getAll: 0, get: 0, set: 0, setMany: 1, delete: 0 });
  });

  it('clearing a code with no incident writes nothing', () => {
    const props = new MemoryProperties();
    const book = new IncidentBook(props, new FakeClock(T0));
    for (const code of INCIDENT_CODES) book.clear(code);
    expect(book.hasChanges()).toBe(false);
    book.commit();
    expect(props.calls.setMany + props.calls.delete + props.calls.set).toBe(0);
  });

  it('clearing an already cleared incident with nothing caught up writes nothing', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    runOnce(props, T0 + MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE'));
    const book = new IncidentBook(props, new FakeClock(T0 + 2 * MINUTE));
    book.clear('SHEETS_UNAVAILABLE');
    expect(book.hasChanges()).toBe(false);
  });
});

describe('clearing', () => {
  it('marks the incident cleared with its time and adds up what each run caught up', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    runOnce(props, T0 + MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE', { 'deliveries moved from the spill into Queue': 2 }));
    runOnce(props, T0 + 2 * MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE', { 'deliveries moved from the spill into Queue': 1, 'replies sent': 4 }));
    expect(incidentFromJson(props.values[incidentKey('SHEETS_UNAVAILABLE')])).toMatchObject({
      state: 'cleared',
      clearedAt: T0 + MINUTE,
      caughtUp: { 'deliveries moved from the spill into Queue': 3, 'replies sent': 4 },
    });
  });

  it('a cleared incident raised again before its recovery mail reopens as the same incident', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    runOnce(props, T0 + MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE'));
    const plan = runOnce(props, T0 + 2 * MINUTE, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    expect(plan.sent).toEqual([]);
    expect(incidentFromJson(props.values[incidentKey('SHEETS_UNAVAILABLE')])).toMatchObject({ state: 'open', clearedAt: null, firstSeen: T0, count: 2 });
  });

  it('a passing Gemini rate limit that staff never heard of is dropped on clear, without a mail', () => {
    const props = new MemoryProperties();
    const first = runOnce(props, T0, (book) => book.raise('GEMINI_RATE_LIMITED', '429'));
    const second = runOnce(props, T0 + MINUTE, (book) => book.clear('GEMINI_RATE_LIMITED'));
    expect([...first.sent, ...second.sent]).toEqual([]);
    expect(props.values[incidentKey('GEMINI_RATE_LIMITED')]).toBeUndefined();
  });
});

describe('commit with a newer stored copy', () => {
  it('keeps the mail mark another execution wrote meanwhile and adds this run\'s raises to its count', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('REJECTED_DELIVERIES', 'bad token'), { quota: 0 });
    const intake = new IncidentBook(props, new FakeClock(T0 + MINUTE)); // doPost loads the unmailed copy
    runOnce(props, T0 + MINUTE, (book) => book.raise('REJECTED_DELIVERIES', 'bad token')); // processQueue mails it
    intake.raise('REJECTED_DELIVERIES', 'bad token');
    intake.commit(props.getAll());
    const stored = incidentFromJson(props.values[incidentKey('REJECTED_DELIVERIES')]);
    expect(stored).toMatchObject({ count: 3, mailsSent: 1, lastMailedAt: T0 + MINUTE });
    const next = runOnce(props, T0 + 2 * MINUTE, () => undefined);
    expect(next.sent).toEqual([]);
  });
});

describe('a book with no known secrets, and persistNow', () => {
  it('a book given no known secrets keeps a plain-words detail word for word', () => {
    const book = new IncidentBook(new MemoryProperties(), new FakeClock(T0), { properties: {} });
    book.raise('CODE_BUG', 'Stryker was here when it broke');
    expect(book.all().map((incident) => incident.detail)).toEqual(['Stryker was here when it broke']);
  });

  it('persistNow writes the incidents raised so far in one setMany, before the run commits', () => {
    const props = new MemoryProperties();
    const book = new IncidentBook(props, new FakeClock(T0), { properties: {} });
    book.raise('CODE_BUG', 'boom');
    book.persistNow();
    expect(props.calls).toEqual({ getAll: 0, get: 0, set: 0, setMany: 1, delete: 0 });
    expect(incidentFromJson(props.values[incidentKey('CODE_BUG')])).toEqual({
      code: 'CODE_BUG', firstSeen: T0, lastSeen: T0, count: 1, runs: 1, rows: [], rowCount: 0, detail: 'boom', lastMailedAt: null, mailsSent: 0, state: 'open', clearedAt: null,
    });
  });
});
