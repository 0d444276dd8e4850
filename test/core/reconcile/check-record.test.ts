// The Typeform check's record in Script Properties: what a report keeps, how a stored record is read back, and the recovered detail.
import { describe, expect, it } from 'vitest';
import { checkRecordOf, inRejectedDetail, readCheckRecord, recoveredDetail, TYPEFORM_CHECK_PROPERTY, type TypeformCheckRecord } from '../../../src/core/reconcile/check-record';
import type { FormCheck, ReconcileReport } from '../../../src/core/reconcile/typeform-reconcile';

const AT = Date.UTC(2026, 11, 1, 6, 0, 0);
const form = (formId: string, patch: Partial<FormCheck> = {}): FormCheck => ({
  formId, seen: 0, alreadyHere: 0, inRejected: 0, recovered: [], failed: [], webhook: 'enabled', error: '', ...patch,
});
const report = (forms: FormCheck[], complete = true): ReconcileReport => ({ at: AT, window: { since: '2026-11-29T06:00:00', until: '2026-11-30T18:00:00' }, forms, complete });
const record = (patch: Partial<TypeformCheckRecord> = {}): TypeformCheckRecord => ({
  at: AT, since: '2026-11-29T06:00:00', until: '2026-11-30T18:00:00', recovered: 0, tokens: [], inRejected: 0, inRejectedTokens: [], disabled: [], errors: [], complete: true,
  // where the next window may start: this check's until when it read every form
  coveredUntil: patch.complete === false ? '' : (patch.until ?? '2026-11-30T18:00:00'),
  ...patch,
});

describe('the record of a check', () => {
  it('keeps the window, the recovered count and tokens of all forms, the disabled or missing webhooks and why forms were not checked', () => {
    const checked = report([
      form('F1', { recovered: ['t1', 't2'], webhook: 'disabled' }),
      form('F2', { error: 'Typeform answered 500: oops', webhook: 'unknown' }),
      form('F3', { recovered: ['t3'], webhook: 'none' }),
      form('F4', { webhook: 'enabled' }),
    ], false);
    expect(checkRecordOf(checked)).toEqual(record({
      recovered: 3, tokens: ['t1', 't2', 't3'], disabled: ['F1', 'F3'], errors: ['F2: Typeform answered 500: oops'], complete: false,
    }));
  });

  it('names the first 20 recovered tokens and counts all of them (Script Properties are small)', () => {
    const tokens = Array.from({ length: 25 }, (_, i) => `t${i}`);
    const kept = checkRecordOf(report([form('F1', { recovered: tokens.slice(0, 15) }), form('F2', { recovered: tokens.slice(15) })]));
    expect(kept.recovered).toBe(25);
    expect(kept.tokens).toEqual(tokens.slice(0, 20));
  });

  it('counts the responses found only in Rejected over all forms, and names the first 20 the Rejected look found', () => {
    const found = Array.from({ length: 22 }, (_, i) => `r${i}`);
    const kept = checkRecordOf(report([form('F1', { inRejected: 2 }), form('F2', { inRejected: 20 })]), found);
    expect(kept).toMatchObject({ inRejected: 22, inRejectedTokens: found.slice(0, 20) });
    expect(readCheckRecord({ [TYPEFORM_CHECK_PROPERTY]: JSON.stringify(kept) })).toEqual(kept);
  });

  it('a stored record reads back as it was written', () => {
    const kept = checkRecordOf(report([form('F1', { recovered: ['t1'], webhook: 'none' }), form('F2', { error: 'x' })], false));
    expect(readCheckRecord({ [TYPEFORM_CHECK_PROPERTY]: JSON.stringify(kept) })).toEqual(kept);
  });
});

describe('a stored record read back', () => {
  const read = (text: string | undefined) => readCheckRecord(text === undefined ? {} : { [TYPEFORM_CHECK_PROPERTY]: text });
  it.each([
    ['no record', undefined],
    ['an empty property', ''],
    ['not JSON', '{at:1'],
    ['JSON null', 'null'],
    ['no check time', JSON.stringify({ recovered: 2 })],
    ['a check time as text', JSON.stringify({ at: String(AT), recovered: 2 })],
  ])('%s is no record', (_name, text) => {
    expect(read(text)).toBeNull();
  });

  it('a record with only its time: no window, nothing recovered, nothing disabled, and complete', () => {
    expect(read(JSON.stringify({ at: AT }))).toEqual({ at: AT, since: '', until: '', recovered: 0, tokens: [], inRejected: 0, inRejectedTokens: [], disabled: [], errors: [], complete: true, coveredUntil: '' });
  });

  it('fields of the wrong type read as text, a count, lists of text and a complete flag that only false turns off', () => {
    const odd = { at: AT, since: 20261129, until: true, recovered: 'many', tokens: [1, 't2'], disabled: 'F1', errors: { F1: 'x' }, complete: 'no' };
    expect(read(JSON.stringify(odd))).toEqual({ at: AT, since: '20261129', until: 'true', recovered: 0, tokens: ['1', 't2'], inRejected: 0, inRejectedTokens: [], disabled: [], errors: [], complete: true, coveredUntil: 'true' });
    expect(read(JSON.stringify({ at: AT, recovered: '3', disabled: ['F1', 2], errors: ['F2: x'], complete: false }))).toMatchObject({ recovered: 3, disabled: ['F1', '2'], errors: ['F2: x'], complete: false });
  });
});

describe('a stored record from before coveredUntil was kept', () => {
  const older = (patch: Partial<TypeformCheckRecord>) => {
    const { coveredUntil: _kept, ...rest } = record(patch);
    return rest;
  };
  it.each([
    ['no complete flag: covered to its until', older({}), record({})],
    ['complete: covered to its until', older({ complete: true }), record({ complete: true })],
    ['incomplete: covers nothing, even with an until', older({ complete: false }), record({ complete: false, coveredUntil: '' })],
    ['incomplete with its own coveredUntil: that one is kept', { ...older({ complete: false }), coveredUntil: '2026-11-27T18:00:00' }, record({ complete: false, coveredUntil: '2026-11-27T18:00:00' })],
  ])('%s', (_name, stored, readBack) => {
    expect(readCheckRecord({ [TYPEFORM_CHECK_PROPERTY]: JSON.stringify(stored) })).toEqual(readBack);
  });
});

describe('the in-Rejected detail (SUBMISSIONS_IN_REJECTED)', () => {
  it.each([
    ['one, named', record({ inRejected: 1, inRejectedTokens: ['t1'] }), '1 response of 2026-11-29T06:00:00–2026-11-30T18:00:00 UTC is in Rejected only: accept it there (response tokens t1)'],
    ['two, named', record({ inRejected: 2, inRejectedTokens: ['t1', 't2'] }), '2 responses of 2026-11-29T06:00:00–2026-11-30T18:00:00 UTC are in Rejected only: accept them there (response tokens t1, t2)'],
    ['more than named', record({ inRejected: 25, inRejectedTokens: ['t1'] }), '25 responses of 2026-11-29T06:00:00–2026-11-30T18:00:00 UTC are in Rejected only: accept them there (response tokens t1, …)'],
    ['a record without tokens (an older one)', record({ inRejected: 2 }), '2 responses of 2026-11-29T06:00:00–2026-11-30T18:00:00 UTC are in Rejected only: accept them there'],
  ])('%s', (_name, check, detail) => {
    expect(inRejectedDetail(check)).toBe(detail);
  });
});

describe('the recovered detail (SUBMISSIONS_RECOVERED)', () => {
  it.each([
    ['all tokens named', record({ recovered: 2, tokens: ['t1', 't2'] }), '(response tokens t1, t2)'],
    ['more recovered than named', record({ recovered: 21, tokens: ['t1', 't2'] }), '(response tokens t1, t2, …)'],
  ])('%s', (_name, check, tail) => {
    expect(recoveredDetail(check)).toBe(`${check.recovered} submission(s) of 2026-11-29T06:00:00–2026-11-30T18:00:00 UTC recovered from Typeform, waiting in AWAITING_APPROVAL ${tail}`);
  });

  it('an incomplete check keeps the last complete one\'s until as where the next window may start', () => {
    expect(checkRecordOf(report([form('F1')], false), [], '2026-11-28T18:00:00').coveredUntil).toBe('2026-11-28T18:00:00');
    expect(checkRecordOf(report([form('F1')], true), [], '2026-11-28T18:00:00').coveredUntil).toBe('2026-11-30T18:00:00');
  });
});
