// The Journal check's rules: which journaled submissions are open, settled or missing, what the Log counts as finished, and the stored state.
import { describe, expect, it } from 'vitest';
import { copiesToNote, isFinishedInLog, journalStateProperties, planJournalCheck, readJournalState, JOURNAL_STATE_PROPERTY } from '../../../src/core/processing/journal-check';
import { journalKeyOf } from '../../../src/core/domain/queue/journal-line';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0 } from '../memory-ports';

const row = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, ...patch });
const key = (n: number) => `tf:Wr1tE5sy:tok-${n}`;

describe('planJournalCheck: open, settled, missing, unjournaled', () => {
  it.each<[string, string[], QueueRow[], { missing: string[]; open: string[]; unjournaled: string[] }]>([
    ['an unfinished row keeps its submission open', [key(1)], [row(1)], { missing: [], open: [key(1)], unjournaled: [] }],
    ['a finished row settles it (deleting it later is a tidy-up)', [key(1)], [row(1, { status: 'SENT' })], { missing: [], open: [], unjournaled: [] }],
    ['a skipped or test row settles it too', [key(1), key(2)], [row(1, { status: 'SKIPPED' }), row(2, { status: 'TEST' })], { missing: [], open: [], unjournaled: [] }],
    ['no row at all: missing', [key(1)], [], { missing: [key(1)], open: [], unjournaled: [] }],
    ['a whole row pasted over it: its copy answers to the other submission, so it is missing', [key(1), key(2)], [row(1), row(1, { rowNumber: 3 })], { missing: [key(2)], open: [key(1)], unjournaled: [] }],
    ['only a DUPLICATE row left: the row that answered it was deleted', [key(1)], [row(1, { status: 'DUPLICATE' })], { missing: [key(1)], open: [], unjournaled: [] }],
    ['a row moved anywhere (sorted, inserted above) is still its own', [key(1)], [row(2), row(1, { rowNumber: 40 })], { missing: [], open: [key(1), key(2)], unjournaled: [key(2)] }],
    ['a recovered row (reconciled: event_id) is the same submission', [key(1)], [row(1, { eventId: 'reconciled:tok-1' })], { missing: [], open: [key(1)], unjournaled: [] }],
    ['an unfinished row the Journal has no line for is journaled', [], [row(3)], { missing: [], open: [key(3)], unjournaled: [key(3)] }],
    ['a finished row without a line is left alone', [], [row(3, { status: 'SENT' })], { missing: [], open: [], unjournaled: [] }],
    ['an empty key is no candidate', [''], [], { missing: [], open: [], unjournaled: [] }],
  ])('%s', (_name, candidates, rows, expected) => {
    const plan = planJournalCheck(candidates, rows);
    expect({ missing: plan.missing, open: plan.open, unjournaled: plan.unjournaled.map(journalKeyOf) }).toEqual(expected);
  });
});

describe('isFinishedInLog: a removed submission the Log shows finished is not put back', () => {
  const line = (minute: number, from: string, to: string, by = 'system', detail = ''): LogEntry => ({ at: T0 + minute * 60_000, eventId: 'e1', from, to, by, detail });
  it.each<[string, LogEntry[], boolean]>([
    ['no line: it never moved', [], false],
    ['generated and waiting', [line(1, 'PENDING', 'GENERATING'), line(2, 'GENERATING', 'READY')], false],
    ['mailed', [line(1, 'READY', 'SENDING'), line(2, 'SENDING', 'SENT')], true],
    ['claimed, outcome unknown: a person must look', [line(1, 'READY', 'SENDING'), line(2, 'SENDING', 'NEEDS_REVIEW')], false],
    ['skipped by a person', [line(1, 'FAILED', 'SKIPPED', 'ana@school.example')], true],
    ['skipped, then set PENDING again', [line(1, 'FAILED', 'SKIPPED', 'ana@school.example'), line(2, 'SKIPPED', 'PENDING', 'ana@school.example')], false],
    ['a test delivery', [line(1, '', 'TEST')], true],
    ['mailed, then a person asked for a new reply: not finished', [line(1, 'READY', 'SENDING'), line(2, 'SENDING', 'SENT'), line(3, 'SENT', 'PENDING', 'ana@school.example')], false],
    ['a refused edit is no move', [line(1, 'FAILED', 'SKIPPED', 'ana@school.example'), line(2, 'SKIPPED', 'SKIPPED', 'ana@school.example')], true],
  ])('%s → %s', (_name, history, finished) => {
    expect(isFinishedInLog(history)).toBe(finished);
  });
});

describe('the stored state', () => {
  it('reads back what it wrote, and starts at row 2 without one', () => {
    const { properties, dropped } = journalStateProperties({ next: 17, open: [key(1), key(2)] }, {});
    expect(dropped).toBe(0);
    expect(Object.keys(properties)).toEqual([JOURNAL_STATE_PROPERTY]);
    expect(readJournalState(properties)).toEqual({ next: 17, open: [key(1), key(2)] });
    expect(readJournalState({})).toEqual({ next: 2, open: [] });
    expect(readJournalState({ [JOURNAL_STATE_PROPERTY]: 'not json' })).toEqual({ next: 2, open: [] });
    expect(readJournalState({ [JOURNAL_STATE_PROPERTY]: '{"next":0,"open":"x"}' })).toEqual({ next: 2, open: [] });
  });

  it('a long open list is written in parts under 9 KB each, and parts no longer needed are emptied', () => {
    const open = Array.from({ length: 400 }, (_, i) => key(i));
    const { properties } = journalStateProperties({ next: 500, open }, {});
    expect(Object.keys(properties).length).toBeGreaterThan(1);
    for (const value of Object.values(properties)) expect(value.length).toBeLessThanOrEqual(8000);
    expect(readJournalState(properties)).toEqual({ next: 500, open });
    const shorter = journalStateProperties({ next: 501, open: [key(1)] }, properties).properties;
    expect(shorter[`${JOURNAL_STATE_PROPERTY}_2`]).toBe('');
    expect(readJournalState({ ...properties, ...shorter })).toEqual({ next: 501, open: [key(1)] });
  });

  it('past its room the oldest open keys are dropped, and counted', () => {
    const open = Array.from({ length: 5000 }, (_, i) => key(i));
    const { properties, dropped } = journalStateProperties({ next: 9, open }, {});
    expect(dropped).toBeGreaterThan(0);
    const back = readJournalState(properties);
    expect(back.open).toEqual(open.slice(dropped));
  });
});

describe('copiesToNote: a copy of a submission waiting for a person is told so', () => {
  it.each<[string, QueueRow[], [number, number[]][]]>([
    ['one row: nothing', [row(1, { status: 'NEEDS_REVIEW' })], []],
    ['a NEEDS_REVIEW copy beside the SENT original (a whole row pasted)', [row(1, { rowNumber: 2, status: 'SENT' }), row(1, { rowNumber: 3, status: 'NEEDS_REVIEW' })], [[3, [2]]]],
    ['two copies waiting for a person: each names the other', [row(1, { rowNumber: 2, status: 'NEEDS_REVIEW' }), row(1, { rowNumber: 3, status: 'AWAITING_APPROVAL' })], [[2, [3]], [3, [2]]]],
    ['a FAILED copy of a recovered row (another event_id, same response)', [row(1, { rowNumber: 2 }), row(1, { rowNumber: 3, eventId: 'reconciled:tok-1', status: 'FAILED' })], [[3, [2]]]],
    ['a DUPLICATE copy names the row that answers: not told again', [row(1, { status: 'NEEDS_REVIEW' }), row(1, { rowNumber: 3, status: 'DUPLICATE' })], []],
    ['a copy already told', [row(1), row(1, { rowNumber: 3, status: 'NEEDS_REVIEW', error: 'COPIED: row(s) 2 hold …' })], []],
    ['PENDING copies are collapsed by processing, not told', [row(1), row(1, { rowNumber: 3 })], []],
    ['rows of two submissions are no copies', [row(1, { status: 'NEEDS_REVIEW' }), row(2, { rowNumber: 3, status: 'NEEDS_REVIEW' })], []],
  ])('%s', (_name, rows, expected) => {
    expect(copiesToNote(rows).map(({ row: copy, others }) => [copy.rowNumber, others])).toEqual(expected);
  });
});

describe('the Journal check at its edges', () => {
  it('a submission with a finished row and an unfinished copy stays open', () => {
    const plan = planJournalCheck([key(1)], [row(1, { status: 'SENT' }), row(1, { rowNumber: 3 })]);
    expect({ missing: plan.missing, open: plan.open, unjournaled: plan.unjournaled }).toEqual({ missing: [], open: [key(1)], unjournaled: [] });
  });

  it('an unfinished row with nothing to know it by (no token, no event_id) is neither journaled nor open', () => {
    const keyless = row(1, { eventId: '', responseToken: '' });
    expect(planJournalCheck([], [keyless, row(2, { eventId: ' ', responseToken: '' })])).toEqual({ missing: [], unjournaled: [], open: [] });
  });

  it('two rows waiting for a person with nothing to know them by are no copies of each other', () => {
    expect(copiesToNote([row(1, { eventId: '', responseToken: '', status: 'NEEDS_REVIEW' }), row(2, { rowNumber: 3, eventId: '', responseToken: '', status: 'FAILED' })])).toEqual([]);
  });

  it('a line that moves nothing is not the last move, whatever status it names', () => {
    const line = (minute: number, from: string, to: string, by: string): LogEntry => ({ at: T0 + minute * 60_000, eventId: 'e1', from, to, by, detail: '' });
    expect(isFinishedInLog([line(1, 'FAILED', 'PENDING', 'ana@school.example'), line(2, 'SKIPPED', 'SKIPPED', 'ana@school.example')])).toBe(false);
    expect(isFinishedInLog([line(1, 'FAILED', 'SKIPPED', 'ana@school.example'), line(2, 'PENDING', 'PENDING', 'ana@school.example')])).toBe(true);
  });

  it('an emptied part ends the state: text left in a later part is not read', () => {
    expect(readJournalState({ [JOURNAL_STATE_PROPERTY]: '{"next":7,"open":[]}', [`${JOURNAL_STATE_PROPERTY}_2`]: '', [`${JOURNAL_STATE_PROPERTY}_3`]: 'left over' })).toEqual({ next: 7, open: [] });
  });

  it('the state is read from ten parts at most: a property past the tenth is neither read nor written', () => {
    const parts: Record<string, string> = { [JOURNAL_STATE_PROPERTY]: '{"next":5,' };
    for (let part = 2; part <= 9; part++) parts[`${JOURNAL_STATE_PROPERTY}_${part}`] = ' ';
    parts[`${JOURNAL_STATE_PROPERTY}_10`] = '"open":[]}';
    parts[`${JOURNAL_STATE_PROPERTY}_11`] = 'not the state';
    expect(readJournalState(parts)).toEqual({ next: 5, open: [] });
    expect(journalStateProperties({ next: 6, open: [] }, { [`${JOURNAL_STATE_PROPERTY}_11`]: 'not the state' })).toEqual({
      properties: { [JOURNAL_STATE_PROPERTY]: '{"next":6,"open":[]}' },
      dropped: 0,
    });
  });

  it('a state exactly as long as its ten parts hold is kept whole', () => {
    const open = Array.from({ length: 2000 }, (_, i) => key(i));
    const length = JSON.stringify({ next: 9, open }).length;
    open[open.length - 1] += 'x'.repeat(80_000 - length);
    expect(JSON.stringify({ next: 9, open }).length).toBe(80_000);
    const { properties, dropped } = journalStateProperties({ next: 9, open }, {});
    expect(dropped).toBe(0);
    expect(Object.keys(properties).length).toBe(10);
    expect(readJournalState(properties)).toEqual({ next: 9, open });
  });
});
