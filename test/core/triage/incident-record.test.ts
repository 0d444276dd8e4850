// One incident as a Script Property: read defensively, written compactly within one property, and when it mails.
import { describe, expect, it } from 'vitest';
import {
  historyFromJson,
  incidentFromJson,
  incidentKey,
  incidentToJson,
  isNotifiable,
  MAX_VALUE_BYTES,
  mergeRows,
  type Incident,
} from '../../../src/core/triage/incident-record';
import { RATE_LIMIT_PERSIST_MINUTES, RATE_LIMIT_PERSIST_RUNS } from '../../../src/core/triage/incident-policy';
import { utf8Length } from '../../../src/core/domain/text';
import { MINUTE, T0 } from '../fakes/rows';

const full: Incident = {
  code: 'CODE_BUG', firstSeen: T0, lastSeen: T0 + MINUTE, count: 3, runs: 2, rows: [2, 5], rowCount: 7, detail: 'boom',
  lastMailedAt: T0 + 2, mailsSent: 1, state: 'cleared', clearedAt: T0 + 3, caughtUp: { 'rows generated': 2 },
};

describe('incidentFromJson', () => {
  it('reads back what incidentToJson wrote', () => {
    expect(incidentFromJson(incidentToJson(full))).toEqual(full);
    expect(incidentKey('CODE_BUG')).toBe('FQ_INCIDENT_CODE_BUG');
  });

  it.each<[string, string]>([
    ['not JSON', '{'],
    ['JSON null', 'null'],
    ['an unknown code', JSON.stringify({ code: 'NOPE', firstSeen: 1 })],
    ['no first-seen time', JSON.stringify({ code: 'CODE_BUG' })],
    ['a first-seen time that is text', JSON.stringify({ code: 'CODE_BUG', firstSeen: '1' })],
  ])('%s is dropped', (_what, json) => expect(incidentFromJson(json)).toBeNull());

  it('fills what is missing or malformed with safe values', () => {
    const read = incidentFromJson(JSON.stringify({ code: 'CODE_BUG', firstSeen: T0, rows: [3, -1, 'x', 2.5, 4], rowCount: 'many', detail: 7, lastMailedAt: 'soon', state: 'weird', clearedAt: 'x', caughtUp: 'no' }));
    expect(read).toEqual({
      code: 'CODE_BUG', firstSeen: T0, lastSeen: T0, count: 1, runs: 1, rows: [3, 4], rowCount: 2, detail: '', lastMailedAt: null,
      mailsSent: 0, state: 'open', clearedAt: null, caughtUp: undefined,
    });
  });

  it('a stored row count larger than the rows kept is believed', () => {
    expect(incidentFromJson(JSON.stringify({ code: 'CODE_BUG', firstSeen: T0, rows: [3], rowCount: 250 }))?.rowCount).toBe(250);
    expect(incidentFromJson(JSON.stringify({ code: 'CODE_BUG', firstSeen: T0, rows: 'x' }))?.rows).toEqual([]);
  });
});

describe('incidentToJson', () => {
  it('fits one property: the detail is shortened first, then the row list', () => {
    const caughtUp = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`${'k'.repeat(500)}${i}`, 1]));
    const big: Incident = { ...full, detail: '€'.repeat(1500), rows: Array.from({ length: 100 }, (_, i) => 100000 + i), rowCount: 100, caughtUp };
    const json = incidentToJson(big);
    expect(utf8Length(json)).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    const back = incidentFromJson(json);
    expect(back?.rows).toHaveLength(100);
    expect(back?.detail.endsWith('…')).toBe(true);
    expect(back?.rowCount).toBe(100);
  });

  it('when the detail alone cannot make room, rows are halved too', () => {
    const huge: Incident = { ...full, detail: 'd'.repeat(200), rows: Array.from({ length: 100 }, (_, i) => 10 ** 15 + i), rowCount: 100, caughtUp: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`${'k'.repeat(1100)}${i}`, 1])) };
    const json = incidentToJson(huge);
    expect(utf8Length(json)).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    const back = JSON.parse(json) as Incident;
    expect(back.rows.length).toBeLessThan(100);
    expect(back.detail.length).toBeLessThanOrEqual(100);
  });

  it('keeps at most 100 rows and 1500 detail characters even when small enough', () => {
    const long: Incident = { ...full, rows: Array.from({ length: 150 }, (_, i) => i + 1), detail: 'a'.repeat(1600) };
    const back = JSON.parse(incidentToJson(long)) as Incident;
    expect(back.rows).toHaveLength(100);
    expect(back.detail).toHaveLength(1500);
  });
});

describe('mergeRows and historyFromJson', () => {
  it('mergeRows: a sorted set of positive whole row numbers', () => {
    expect(mergeRows([5, 2], [2, 9, 0, -3, 1.5, 3])).toEqual([2, 3, 5, 9]);
  });

  it('historyFromJson keeps well-formed entries only', () => {
    const good = { code: 'CODE_BUG', firstSeen: 1, clearedAt: 2, count: 1 };
    expect(historyFromJson(JSON.stringify([good, null, { code: 'NOPE', clearedAt: 2 }, { code: 'CODE_BUG', clearedAt: '2' }]))).toEqual([good]);
    expect(historyFromJson(undefined)).toEqual([]);
    expect(historyFromJson('')).toEqual([]);
    expect(historyFromJson('{')).toEqual([]);
    expect(historyFromJson('{"a":1}')).toEqual([]);
  });
});

describe('isNotifiable', () => {
  const limited = (runs: number, minutes: number): Incident => ({ ...full, code: 'GEMINI_RATE_LIMITED', state: 'open', runs, firstSeen: T0, lastSeen: T0 + minutes * MINUTE });

  it('most incidents mail at once', () => expect(isNotifiable({ ...full, runs: 1, lastSeen: full.firstSeen })).toBe(true));

  it(`a per-minute rate limit only once seen in ${RATE_LIMIT_PERSIST_RUNS} runs over ${RATE_LIMIT_PERSIST_MINUTES} minutes`, () => {
    expect(isNotifiable(limited(RATE_LIMIT_PERSIST_RUNS, RATE_LIMIT_PERSIST_MINUTES))).toBe(true);
    expect(isNotifiable(limited(RATE_LIMIT_PERSIST_RUNS - 1, RATE_LIMIT_PERSIST_MINUTES))).toBe(false);
    expect(isNotifiable(limited(RATE_LIMIT_PERSIST_RUNS, RATE_LIMIT_PERSIST_MINUTES - 1))).toBe(false);
  });
});
