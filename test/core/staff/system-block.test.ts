// A paste or clear over several rows of the system columns, judged row by row from the payload and the Log's ledger.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/ports';
import type { QueueHeader } from '../../../src/core/queue-row';
import { withLedgerFacts } from '../../../src/core/send-ledger';
import { decideSystemBlockRow, eventIdOfPayload } from '../../../src/core/staff/system-block';
import { repliedRow, STAFF, T0 } from '../fakes/rows';

const ID = 'evt-block';
const REF = 'FQ-7K2M9Q';
const SENT_AT = T0 - 60_000;
const payload = JSON.stringify({ event_id: ID, event_type: 'form_response', form_response: { token: 'tok' } });
const ledger: LogEntry[] = [
  { at: SENT_AT - 1000, eventId: ID, from: 'READY', to: 'SENDING', by: 'system', detail: withLedgerFacts('claimed for sending', { mailRef: REF, claimedAt: SENT_AT - 1000 }) },
  { at: SENT_AT, eventId: ID, from: 'SENDING', to: 'SENT', by: 'system', detail: withLedgerFacts(`mailed to the respondent (${REF})`, { mailRef: REF, sentAt: SENT_AT }) },
];
const sent = (patch = {}) => repliedRow('SENT', { eventId: ID, payload, mailRef: REF, sentAt: SENT_AT, ...patch });
const decide = (row: ReturnType<typeof sent>, touched: QueueHeader[], history = ledger, wholeRows = false) =>
  decideSystemBlockRow({ row, touched, history, wholeRows, context: STAFF });

describe('eventIdOfPayload', () => {
  it.each([
    [payload, ID],
    ['(in Payloads: 3 parts)', null],
    ['', null],
    ['{"event_id": 7}', null],
    ['{not json', null],
  ])('%j → %j', (text, id) => expect(eventIdOfPayload(text)).toBe(id));
});

describe('decideSystemBlockRow', () => {
  it('sent_at and mail_ref cleared on a SENT row are put back from the ledger line', () => {
    const decision = decide(sent({ sentAt: null, mailRef: '' }), ['sent_at', 'mail_ref']);
    expect(decision).toMatchObject({ kind: 'changed', row: { status: 'SENT', sentAt: SENT_AT, mailRef: REF }, columns: ['mail_ref', 'sent_at'] });
    expect(decision.kind === 'changed' && decision.log).toMatchObject({ eventId: ID, from: 'SENT', to: 'SENT', by: 'ana@example.org' });
  });

  it('a claimed_at pasted onto a SENT row is cleared: the send cleared it', () => {
    expect(decide(sent({ claimedAt: T0 }), ['claimed_at'])).toMatchObject({ kind: 'changed', row: { claimedAt: null }, columns: ['claimed_at'] });
  });

  it('an event_id pasted over is put back from the payload, and the ledger of that event_id is used', () => {
    const decision = decide(sent({ eventId: 'x-1', sentAt: null }), ['event_id', 'sent_at']);
    expect(decision).toMatchObject({ kind: 'changed', row: { eventId: ID, sentAt: SENT_AT }, columns: ['event_id', 'sent_at'] });
  });

  it('a row that agrees with its payload and ledger is intact', () => {
    expect(decide(sent(), ['event_id', 'sent_at', 'mail_ref', 'claimed_at'])).toEqual({ kind: 'intact' });
  });

  it('a value nothing records parks an unfinished row in NEEDS_REVIEW with the reason; in a block of whole rows (a sort) it is left', () => {
    const ready = repliedRow('READY', { eventId: ID, payload, claimedAt: T0 });
    expect(decide(ready, ['claimed_at'], [])).toMatchObject({ kind: 'changed', row: { status: 'NEEDS_REVIEW', error: expect.stringMatching(/^STAFF_EDIT_UNCHECKED: /) } });
    expect(decide(ready, ['claimed_at'], [], true)).toEqual({ kind: 'intact' });
  });

  it('a row of no submission (no event_id, no payload) is left alone', () => {
    expect(decide(repliedRow('', { eventId: '', payload: '' }), ['event_id'])).toEqual({ kind: 'intact' });
  });
});
