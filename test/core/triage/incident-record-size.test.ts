// An incident's stored JSON at the 8,000-byte limit: exactly what is kept, in which order it shrinks, and that it always ends.
import { describe, expect, it } from 'vitest';
import { historyFromJson, incidentFromJson, incidentToJson, MAX_VALUE_BYTES, type Incident } from '../../../src/core/triage/incident-record';
import { utf8Length } from '../../../src/core/domain/text';
import { T0 } from '../fakes/rows';

const base: Incident = {
  code: 'CODE_BUG', firstSeen: T0, lastSeen: T0, count: 1, runs: 1, rows: [], rowCount: 0, detail: '',
  lastMailedAt: null, mailsSent: 0, state: 'open', clearedAt: null,
};

/** An incident whose JSON is exactly `bytes` long, padded with one caught-up key. */
function ofSize(bytes: number, fields: Partial<Incident>): Incident {
  const probe = { ...base, ...fields, caughtUp: { '': 1 } };
  const pad = bytes - utf8Length(JSON.stringify(probe));
  return { ...probe, caughtUp: { ['k'.repeat(pad)]: 1 } };
}

describe('incidentToJson at the limit', () => {
  it('exactly 8,000 bytes is kept whole', () => {
    const incident = ofSize(MAX_VALUE_BYTES, { detail: 'x'.repeat(300), rows: [2, 3] });
    expect(utf8Length(JSON.stringify(incident))).toBe(MAX_VALUE_BYTES);
    expect(incidentToJson(incident)).toBe(JSON.stringify(incident));
  });

  it('one byte over: the detail is halved first, with an ellipsis, the rows kept', () => {
    const incident = ofSize(MAX_VALUE_BYTES + 1, { detail: 'x'.repeat(300), rows: [2, 3] });
    expect(JSON.parse(incidentToJson(incident))).toEqual({ ...incident, detail: `${'x'.repeat(150)}…` });
  });

  it('a detail of 100 characters or less is not cut: the rows are halved instead', () => {
    const incident = ofSize(MAX_VALUE_BYTES + 1, { detail: 'x'.repeat(100), rows: [2, 3, 4, 5] });
    expect(JSON.parse(incidentToJson(incident))).toEqual({ ...incident, rows: [2, 3] });
  });

  it('a detail of 101 characters is halved', () => {
    const incident = ofSize(MAX_VALUE_BYTES + 1, { detail: 'x'.repeat(101), rows: [2] });
    expect(JSON.parse(incidentToJson(incident))).toEqual({ ...incident, detail: `${'x'.repeat(50)}…` });
  });

  it('with no rows left, a short detail is dropped', () => {
    const incident = ofSize(MAX_VALUE_BYTES + 1, { detail: 'x'.repeat(20), rows: [] });
    expect(JSON.parse(incidentToJson(incident))).toEqual({ ...incident, detail: '' });
  });

  it('caught-up counts too large alone are dropped last, so it always ends and always fits (this once looped forever)', () => {
    const incident: Incident = { ...base, detail: 'short', rows: [7], caughtUp: { ['k'.repeat(9000)]: 1 } };
    const json = incidentToJson(incident);
    expect(utf8Length(json)).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    expect(incidentFromJson(json)).toEqual({ ...base, detail: '', rows: [], rowCount: 0, caughtUp: undefined });
  });
});

describe('reading stored values', () => {
  it('row 0 is no sheet row and is dropped, row 1 is kept', () => {
    expect(incidentFromJson(JSON.stringify({ code: 'CODE_BUG', firstSeen: T0, rows: [0, 1, 3] }))?.rows).toEqual([1, 3]);
  });

  it.each([[undefined], [''], ['not json'], ['{"code":"CODE_BUG"}']])('a history of %j is empty', (json) => {
    expect(historyFromJson(json)).toEqual([]);
  });
});
