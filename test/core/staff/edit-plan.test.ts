// The on-edit guard's planner: what one Queue edit leaves on each row, which notes and which Log lines, from the rows and the Log alone.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { DAY_MS } from '../../../src/core/domain/time';
import {
  planSingleCellEdit,
  planSystemBlockEdit,
  planSystemCellEdit,
  planUncheckedEdit,
  SUPERSEDED,
  type EditedRow,
  type EditPlan,
} from '../../../src/core/staff/edit-plan';
import { withLedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import { MemoryAudit } from '../memory-ports';
import { queueRow, repliedRow, STAFF, T0 } from '../fakes/rows';

/** A row as the guard reads it after the edit: the status and result cells' text as Sheets holds them. */
const edited = (row: QueueRow, statusText = String(row.status)): EditedRow => ({ row, statusText, resultText: row.result });

function auditWith(...lines: Partial<LogEntry>[]): MemoryAudit {
  const audit = new MemoryAudit();
  audit.append(lines.map((line) => ({ at: T0 - DAY_MS, eventId: 'ev-2', from: '', to: '', by: 'system', detail: '', ...line })));
  return audit;
}

const asPlan = (plan: EditPlan | string): EditPlan => {
  if (typeof plan === 'string') throw new Error(`expected a plan, got ${plan}`);
  return plan;
};

describe('planSingleCellEdit: one status or result cell', () => {
  it.each([
    // [case, from (e.oldValue), to (the cell now), written status, allowed, refused, note set]
    ['an approval stands', 'AWAITING_APPROVAL', 'APPROVED', 'APPROVED', 1, 0, false],
    ['a move the table refuses is put back', 'FAILED', 'APPROVED', 'FAILED', 0, 1, true],
    ['a value that is no status is put back', 'NEEDS_REVIEW', 'sent it', 'NEEDS_REVIEW', 0, 1, true],
  ] as const)('%s', (_case, from, to, status, allowed, refused, noted) => {
    const audit = new MemoryAudit();
    const plan = asPlan(planSingleCellEdit({ edited: edited(repliedRow(to)), column: 'status', value: to, oldValue: from, context: STAFF, audit }));
    expect(plan.kind).toBe('write');
    expect(plan.written[0]?.status).toBe(status);
    expect(plan.outcome).toMatchObject({ allowed, refused });
    // The toast names a refusal only; an allowed move has nothing to say.
    expect(plan.outcome.notes).toHaveLength(refused);
    // What the write compares against is the row as read.
    expect(plan.read).toEqual([repliedRow(to)]);
    expect(plan.lines[0]).toHaveLength(1);
    expect(plan.notes).toEqual([{ header: 'status', notes: [noted ? plan.outcome.notes[0] : ''] }]);
    expect(plan.wake).toBe(allowed > 0);
    expect(plan.review).toEqual(allowed > 0 ? { kind: 'approval' } : undefined);
    // Sheets told the old value: the Log is not read.
    expect(audit.lookups).toEqual([]);
  });

  it('a cell that no longer holds what the event says staff left in it is superseded: nothing is written', () => {
    const plan = asPlan(planSingleCellEdit({ edited: edited(repliedRow('SENDING')), column: 'status', value: 'APPROVED', oldValue: 'AWAITING_APPROVAL', context: STAFF, audit: new MemoryAudit() }));
    expect(plan.kind).toBe('superseded');
    expect(plan.written).toEqual([null]);
    expect(plan.outcome.notes).toEqual([SUPERSEDED]);
  });

  it('a status retyped in lower case is rewritten canonically, with no Log line and no note', () => {
    const plan = asPlan(planSingleCellEdit({ edited: edited(repliedRow('approved')), column: 'status', value: 'approved', oldValue: 'APPROVED', context: STAFF, audit: new MemoryAudit() }));
    expect(plan.kind).toBe('write');
    expect(plan.written[0]?.status).toBe('APPROVED');
    expect(plan.lines).toEqual([[]]);
    expect(plan.notes).toEqual([]);
  });

  it('the same status typed again is nothing to do', () => {
    const plan = asPlan(planSingleCellEdit({ edited: edited(repliedRow('APPROVED')), column: 'status', value: 'APPROVED', oldValue: 'APPROVED', context: STAFF, audit: new MemoryAudit() }));
    expect(plan.kind).toBe('nothing');
  });

  it('a pasted status (no old value) is judged from the last status the Log recorded, read once', () => {
    const audit = auditWith({ from: 'PENDING', to: 'NEEDS_REVIEW' });
    const plan = asPlan(planSingleCellEdit({ edited: edited(repliedRow('PENDING')), column: 'status', value: 'PENDING', context: STAFF, audit }));
    expect(plan.outcome.allowed).toBe(1);
    expect(plan.written[0]).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(audit.lookups).toEqual([['ev-2']]);
  });

  it('a pasted status over a row the Log knows nothing of is left to the unchecked rules', () => {
    expect(planSingleCellEdit({ edited: edited(repliedRow('APPROVED')), column: 'status', value: 'APPROVED', context: STAFF, audit: new MemoryAudit() })).toBe('unchecked');
  });

  it('a status typed into a row with no submission is put back empty, without a Log search (there is nothing to look up)', () => {
    const audit = new MemoryAudit();
    const plan = asPlan(planSingleCellEdit({ edited: edited(queueRow('APPROVED', { eventId: '' })), column: 'status', value: 'APPROVED', context: STAFF, audit }));
    expect(plan.written[0]?.status).toBe('');
    expect(plan.outcome.refused).toBe(1);
    expect(audit.lookups).toEqual([]);
  });

  it('a reply edited while waiting for approval stands, and its review keeps the text it replaced', () => {
    const row = repliedRow('AWAITING_APPROVAL', { result: 'Dear someone, thanks a lot.' });
    const plan = asPlan(planSingleCellEdit({ edited: edited(row), column: 'result', value: row.result, oldValue: 'Dear someone, thanks.', context: STAFF, audit: new MemoryAudit() }));
    expect(plan.written[0]).toMatchObject({ result: 'Dear someone, thanks a lot.', updatedAt: T0 });
    expect(plan.review).toEqual({ kind: 'result-edit', draft: 'Dear someone, thanks.' });
    expect(plan.wake).toBe(true);
  });

  it('a reply edited after it was approved is put back', () => {
    const row = repliedRow('APPROVED', { result: 'changed' });
    const plan = asPlan(planSingleCellEdit({ edited: edited(row), column: 'result', value: 'changed', oldValue: 'Dear someone, thanks.', context: STAFF, audit: new MemoryAudit() }));
    expect(plan.written[0]?.result).toBe('Dear someone, thanks.');
    expect(plan.notes[0].header).toBe('result');
  });
});

describe('planUncheckedEdit: a paste or multi-cell edit', () => {
  it('APPROVED pasted over rows the Log knows nothing of parks each in NEEDS_REVIEW, with a note per row', () => {
    const rows = [edited(repliedRow('APPROVED', { rowNumber: 2 })), edited(repliedRow('APPROVED', { rowNumber: 3 }))];
    const plan = planUncheckedEdit({ rows, statusTouched: true, resultTouched: false, wholeRows: false, context: STAFF, audit: new MemoryAudit() });
    expect(plan.written.map((row) => row?.status)).toEqual(['NEEDS_REVIEW', 'NEEDS_REVIEW']);
    expect(plan.outcome.refused).toBe(2);
    expect(plan.notes).toHaveLength(1);
    expect(plan.notes[0].notes.every((note) => note !== '')).toBe(true);
    expect(plan.wake).toBe(false);
    expect(plan.kind).toBe('write');
  });

  it('in a block of whole rows, a row the Log vouches for keeps an empty note while a row it cannot vouch for is parked with one', () => {
    const audit = new MemoryAudit();
    audit.append([{ at: T0 - DAY_MS, eventId: 'ev-2', from: 'SENDING', to: 'SENT', by: 'system', detail: '' }]);
    const rows = [edited(repliedRow('SENT', { rowNumber: 2 })), edited(repliedRow('APPROVED', { rowNumber: 3 }))];
    const plan = planUncheckedEdit({ rows, statusTouched: true, resultTouched: false, wholeRows: true, context: STAFF, audit });
    expect(plan.written.map((row) => row?.status ?? null)).toEqual([null, 'NEEDS_REVIEW']);
    expect(plan.notes).toEqual([{ header: 'status', notes: ['', plan.outcome.notes[0]] }]);
    expect(plan.outcome.refused).toBe(1);
  });

  it('a sort (whole rows, each as the Log last left it) is left alone: no write, no note, no line', () => {
    const audit = new MemoryAudit();
    audit.append([{ at: T0 - DAY_MS, eventId: 'ev-3', from: 'PENDING', to: 'SENT', by: 'system', detail: '' }]);
    const rows = [edited(repliedRow('PENDING', { rowNumber: 2 })), edited(repliedRow('SENT', { rowNumber: 3 }))];
    const plan = planUncheckedEdit({ rows, statusTouched: true, resultTouched: true, wholeRows: true, context: STAFF, audit });
    expect(plan.written).toEqual([null, null]);
    expect(plan.lines.flat()).toEqual([]);
    expect(plan.notes).toEqual([]);
  });

  it('a status pasted over rows whose last status the Log records is judged as a move from it: allowed, refused or rewritten', () => {
    const audit = new MemoryAudit();
    audit.append(['ev-2', 'ev-3', 'ev-4', 'ev-5'].map((eventId) => ({ at: T0 - DAY_MS, eventId, from: 'FAILED', to: 'NEEDS_REVIEW', by: 'system', detail: '' })));
    const rows = [
      edited(repliedRow('PENDING', { rowNumber: 2 })),
      edited(repliedRow('APPROVED', { rowNumber: 3, eventId: 'ev-3' })),
      edited(repliedRow('needs_review', { rowNumber: 4, eventId: 'ev-4' })),
      edited(repliedRow('NEEDS_REVIEW', { rowNumber: 5, eventId: 'ev-5' })),
    ];
    const plan = planUncheckedEdit({ rows, statusTouched: true, resultTouched: false, wholeRows: false, context: STAFF, audit });
    expect(plan.written.map((row) => row?.status)).toEqual(['PENDING', 'NEEDS_REVIEW', 'NEEDS_REVIEW', 'NEEDS_REVIEW']);
    expect(plan.outcome).toMatchObject({ allowed: 1, refused: 1 });
    expect(plan.lines.map((lines) => lines.length)).toEqual([1, 1, 0, 0]);
    expect(plan.notes[0].notes.map((note) => note !== '')).toEqual([false, true, false, false]);
    expect(plan.wake).toBe(true);
    expect(audit.lookups).toEqual([['ev-2', 'ev-3', 'ev-4', 'ev-5']]);
  });

  it('a result pasted over rows that may be edited stands with a Log line each and no note', () => {
    const rows = [edited(repliedRow('AWAITING_APPROVAL', { rowNumber: 2 })), edited(repliedRow('READY', { rowNumber: 3, eventId: 'ev-3' }))];
    const plan = planUncheckedEdit({ rows, statusTouched: false, resultTouched: true, wholeRows: false, context: STAFF, audit: new MemoryAudit() });
    expect(plan.written.map((row) => row?.status)).toEqual(['AWAITING_APPROVAL', 'READY']);
    expect(plan.lines.flat()).toHaveLength(2);
    expect(plan.notes).toEqual([]);
    expect(plan.outcome).toEqual({ allowed: 0, refused: 0, notes: [] });
  });

  it('a row with no submission in the block is not written', () => {
    const rows = [edited(queueRow('APPROVED', { eventId: '' }))];
    const plan = planUncheckedEdit({ rows, statusTouched: true, resultTouched: false, wholeRows: false, context: STAFF, audit: new MemoryAudit() });
    expect(plan.written).toEqual([null]);
    expect(plan.notes).toEqual([{ header: 'status', notes: [''] }]);
  });

  it('a result pasted over an approved row parks it so unapproved text is not mailed', () => {
    const audit = new MemoryAudit();
    const plan = planUncheckedEdit({ rows: [edited(repliedRow('APPROVED'))], statusTouched: false, resultTouched: true, wholeRows: false, context: STAFF, audit });
    expect(plan.written[0]?.status).toBe('NEEDS_REVIEW');
    expect(plan.notes.map((column) => column.header)).toEqual(['result']);
    // The toast counts it as refused and says why.
    expect(plan.outcome).toEqual({ allowed: 0, refused: 1, notes: [plan.notes[0].notes[0]] });
    expect(plan.outcome.notes[0]).not.toBe('');
    // A result-only paste needs no status from the Log: it is not read.
    expect(audit.lookups).toEqual([]);
  });

  it('a result pasted over an approved and a waiting row notes only the approved one', () => {
    const rows = [edited(repliedRow('APPROVED', { rowNumber: 2 })), edited(repliedRow('AWAITING_APPROVAL', { rowNumber: 3, eventId: 'ev-3' }))];
    const plan = planUncheckedEdit({ rows, statusTouched: false, resultTouched: true, wholeRows: false, context: STAFF, audit: new MemoryAudit() });
    expect(plan.written.map((row) => row?.status)).toEqual(['NEEDS_REVIEW', 'AWAITING_APPROVAL']);
    expect(plan.notes).toEqual([{ header: 'result', notes: [plan.outcome.notes[0], ''] }]);
  });
});

describe('planSystemCellEdit and planSystemBlockEdit: event_id, sent_at, mail_ref, claimed_at', () => {
  it('a sent_at cleared by hand is put back from the old value Sheets told (a day serial), as a time', () => {
    const serial = '45809.4166666667'; // 2025-06-01 10:00 UTC
    const row = repliedRow('SENT', { sentAt: null });
    const plan = asPlan(planSystemCellEdit({ rows: [edited(row)], header: 'sent_at', value: '', oldValue: serial, context: STAFF }));
    expect(plan.written[0]?.sentAt).toBe(Date.UTC(2025, 5, 1, 10, 0, 0));
    expect(plan.written[0]?.status).toBe('SENT');
    expect(plan.outcome.refused).toBe(1);
    expect(plan.notes[0].header).toBe('sent_at');
    expect(plan.kind).toBe('write');
    // The Log line names the row's submission, not the value put back.
    expect(plan.lines[0].map((line) => line.eventId)).toEqual(['ev-2']);
  });

  it('a sent_at whose old value was no time is put back empty (the row holds a time or nothing)', () => {
    const plan = asPlan(planSystemCellEdit({ rows: [edited(repliedRow('SENT', { sentAt: T0 }))], header: 'sent_at', value: '', oldValue: 'yesterday', context: STAFF }));
    expect(plan.written[0]?.sentAt).toBeNull();
  });

  it('a system cell typed over on a row with no submission is neither written nor noted', () => {
    const plan = asPlan(planSystemCellEdit({ rows: [edited(queueRow('', { eventId: '' }))], header: 'mail_ref', value: 'FQ-2', oldValue: 'FQ-1', context: STAFF }));
    expect(plan.written).toEqual([null]);
    expect(plan.lines).toEqual([[]]);
    expect(plan.notes).toEqual([{ header: 'mail_ref', notes: [''] }]);
    expect(plan.outcome).toEqual({ allowed: 0, refused: 0, notes: [] });
  });

  it('an event_id typed over is put back, and its Log line names the submission put back', () => {
    const plan = asPlan(planSystemCellEdit({ rows: [edited(repliedRow('SENT', { eventId: 'typed' }))], header: 'event_id', value: 'typed', oldValue: 'ev-2', context: STAFF }));
    expect(plan.written[0]?.eventId).toBe('ev-2');
    expect(plan.lines[0][0].eventId).toBe('ev-2');
  });

  it('a system cell whose old value Sheets did not tell goes to the block rules; the same value typed again is nothing', () => {
    expect(planSystemCellEdit({ rows: [edited(repliedRow('SENT'))], header: 'mail_ref', value: 'FQ-1', context: STAFF })).toBe('block');
    expect(asPlan(planSystemCellEdit({ rows: [edited(repliedRow('SENT', { mailRef: 'FQ-1' }))], header: 'mail_ref', value: 'FQ-1', oldValue: 'FQ-1', context: STAFF })).kind).toBe('nothing');
  });

  it('a system cell cleared (the event has no new value) that Sheets told was empty is nothing: no put-back, no Log line', () => {
    // A clear leaves e.value undefined; an old value Sheets tells as null reads as '' (edit-guard.ts's cellText).
    const plan = asPlan(planSystemCellEdit({ rows: [edited(repliedRow('SENT', { sentAt: null }))], header: 'sent_at', oldValue: '', context: STAFF }));
    expect(plan.kind).toBe('nothing');
    expect(plan.written).toEqual([null]);
    expect(plan.lines).toEqual([[]]);
    expect(plan.outcome).toEqual({ allowed: 0, refused: 0, notes: [] });
  });

  it('event_id pasted over two rows is put back from each payload; a row left intact gets no note', () => {
    const payload = (id: string) => JSON.stringify({ event_id: id });
    const rows = [
      edited(repliedRow('PENDING', { rowNumber: 2, eventId: 'pasted', payload: payload('ev-2') })),
      edited(repliedRow('PENDING', { rowNumber: 3, eventId: 'ev-3', payload: payload('ev-3') })),
    ];
    const plan = planSystemBlockEdit({ rows, touched: ['event_id'], wholeRows: false, context: STAFF, audit: new MemoryAudit() });
    expect(plan.written.map((row) => row?.eventId ?? null)).toEqual(['ev-2', null]);
    expect(plan.notes).toEqual([{ header: 'event_id', notes: [plan.outcome.notes[0], null] }]);
  });

  describe('from the Log\'s ledger', () => {
    const REF = 'FQ-7K2M9Q';
    const SENT_AT = T0 - 60_000;
    const sentLine = (eventId: string): LogEntry => ({
      at: SENT_AT,
      eventId,
      from: 'SENDING',
      to: 'SENT',
      by: 'system',
      detail: withLedgerFacts(`mailed to the respondent (${REF})`, { mailRef: REF, sentAt: SENT_AT }),
    });
    const payload = (id: string) => JSON.stringify({ event_id: id });

    it('sent_at cleared over two sent rows is put back on each from its ledger line, with a note on each; the Log is read once, for real ids only', () => {
      const audit = new MemoryAudit();
      audit.append([sentLine('ev-2'), sentLine('ev-3')]);
      const rows = [
        edited(repliedRow('SENT', { rowNumber: 2, mailRef: REF, sentAt: null, payload: '(in Payloads: 2 parts)' })),
        edited(repliedRow('SENT', { rowNumber: 3, eventId: 'ev-3', mailRef: REF, sentAt: null, payload: payload('ev-3') })),
        edited(queueRow('', { rowNumber: 4, eventId: '' })),
      ];
      const plan = planSystemBlockEdit({ rows, touched: ['sent_at'], wholeRows: false, context: STAFF, audit });
      expect(plan.kind).toBe('write');
      expect(plan.written.map((row) => row?.sentAt ?? null)).toEqual([SENT_AT, SENT_AT, null]);
      expect(plan.outcome.refused).toBe(2);
      expect(plan.notes).toEqual([{ header: 'sent_at', notes: [plan.outcome.notes[0], plan.outcome.notes[1], null] }]);
      expect(plan.outcome.notes[0]).toContain('multi-cell edit of sent_at');
      expect(audit.lookups).toEqual([['ev-2', 'ev-3']]);
    });

    it('event_id and sent_at pasted over one row: the event_id comes back from the payload, the sent_at from that submission\'s ledger line', () => {
      const audit = new MemoryAudit();
      audit.append([sentLine('ev-2')]);
      const rows = [edited(repliedRow('SENT', { eventId: 'pasted', mailRef: REF, sentAt: null, payload: payload('ev-2') }))];
      const plan = planSystemBlockEdit({ rows, touched: ['event_id', 'sent_at'], wholeRows: false, context: STAFF, audit });
      expect(plan.written[0]).toMatchObject({ eventId: 'ev-2', sentAt: SENT_AT, status: 'SENT' });
      expect(audit.lookups).toEqual([['pasted', 'ev-2']]);
    });

    it('one pasted cell (no old value told) is judged the same way, and its note says so rather than calling it a multi-cell edit', () => {
      const audit = new MemoryAudit();
      audit.append([sentLine('ev-2')]);
      const rows = [edited(repliedRow('SENT', { mailRef: REF, sentAt: null }))];
      const plan = planSystemBlockEdit({ rows, touched: ['sent_at'], wholeRows: false, singleCell: true, context: STAFF, audit });
      expect(plan.written[0]?.sentAt).toBe(SENT_AT);
      expect(plan.outcome.notes[0]).toContain('edit of sent_at with no previous value given');
      expect(plan.outcome.notes[0]).not.toContain('multi-cell');
    });
  });

  it('a block whose every row agrees with its payload and the Log is nothing to do', () => {
    const rows = [edited(repliedRow('PENDING', { payload: JSON.stringify({ event_id: 'ev-2' }) }))];
    expect(planSystemBlockEdit({ rows, touched: ['event_id'], wholeRows: false, context: STAFF, audit: new MemoryAudit() }).kind).toBe('nothing');
  });
});
