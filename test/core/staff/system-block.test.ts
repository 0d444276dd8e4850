// A paste or clear over several rows of the system columns, judged row by row from the payload and the Log's ledger.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueHeader } from '../../../src/core/domain/queue/queue-row';
import { withLedgerFacts } from '../../../src/core/domain/mail/send-ledger';
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
    ['{"event_id": ""}', null],
    ['{not json', null],
    ['null', null],
    ['"evt-block"', null],
    [`[${payload}]`, null],
    [`\n  ${payload}`, ID],
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
    const unchecked = "claimed_at was changed by a paste or a multi-cell edit and could not be put back (Sheets gives no previous value); parked in NEEDS_REVIEW so nothing is sent until a person looks";
    expect(decide(ready, ['claimed_at'], [])).toMatchObject({
      kind: 'changed',
      row: { status: 'NEEDS_REVIEW', claimedAt: T0, updatedAt: T0, error: expect.stringMatching(/^STAFF_EDIT_UNCHECKED: /) },
      columns: ['claimed_at'],
      note: `formqueue (edit by ana@example.org): multi-cell edit of claimed_at: ${unchecked}.`,
      log: { at: T0, eventId: ID, from: 'READY', to: 'NEEDS_REVIEW', by: 'ana@example.org', detail: `multi-cell edit of claimed_at: ${unchecked}` },
    });
    expect(decide(ready, ['claimed_at'], [], true)).toEqual({ kind: 'intact' });
  });

  it.each<[string, string]>([
    ['pasted over', 'x-1'],
    ['cleared', ''],
  ])('an event_id %s alone is put back from the payload, and the note says from what', (_name, pasted) => {
    const shown = pasted || '(empty)';
    const detail = `multi-cell edit of event_id: put back event_id from the row's payload (${shown} → ${ID})`;
    expect(decide(sent({ eventId: pasted }), ['event_id'])).toEqual({
      kind: 'changed',
      row: sent({ updatedAt: T0 }),
      columns: ['event_id'],
      note: `formqueue (edit by ana@example.org): ${detail}.`,
      log: { at: T0, eventId: ID, from: 'SENT', to: 'SENT', by: 'ana@example.org', detail },
    });
  });

  it('an event_id and a sent_at put back are both named, in one note', () => {
    const decision = decide(sent({ eventId: '', sentAt: null }), ['event_id', 'sent_at']);
    const iso = new Date(SENT_AT).toISOString();
    expect(decision.kind === 'changed' && decision.note).toBe(
      `formqueue (edit by ana@example.org): multi-cell edit of event_id, sent_at: put back event_id from the row's payload ((empty) → ${ID}); ` +
        `put back sent_at (empty) → ${iso} from the Log's SENT line of ${iso}: these columns are formqueue's memory of this row (how a reply is never mailed twice).`,
    );
  });

  it('only the columns the edit touched are put back: a sent_at it did not touch is left as it is', () => {
    expect(decide(sent({ mailRef: '', sentAt: null }), ['mail_ref'])).toMatchObject({ kind: 'changed', row: { mailRef: REF, sentAt: null }, columns: ['mail_ref'] });
    expect(decide(sent({ sentAt: null }), ['mail_ref'])).toEqual({ kind: 'intact' });
  });

  it('a row whose payload cell is blank is still put right from the ledger by its event_id', () => {
    expect(decide(sent({ payload: '', sentAt: null }), ['sent_at'])).toMatchObject({ kind: 'changed', row: { sentAt: SENT_AT }, columns: ['sent_at'] });
  });

  it('an event_id pasted over a row whose payload is in the Payloads sheet cannot be checked: the row is parked, the pasted id kept', () => {
    const ready = repliedRow('READY', { eventId: 'x-1', payload: '(in Payloads: 3 parts)' });
    expect(decide(ready, ['event_id'], [])).toMatchObject({ kind: 'changed', row: { status: 'NEEDS_REVIEW', eventId: 'x-1' }, columns: ['event_id'] });
  });

  it('a sent_at pasted onto a READY row is parked even though the Log holds an earlier send: the ledger vouches only for a row in its status', () => {
    const ready = repliedRow('READY', { eventId: ID, payload, sentAt: T0 });
    expect(decide(ready, ['sent_at'])).toMatchObject({ kind: 'changed', row: { status: 'NEEDS_REVIEW', sentAt: T0 }, columns: ['sent_at'] });
  });

  it('a mail_ref pasted onto a SENDING row whose claim line records no mail_ref is parked: the ledger vouches only for what it recorded', () => {
    const sending = repliedRow('SENDING', { eventId: ID, payload, mailRef: 'FQ-PASTED', claimedAt: SENT_AT });
    const oldClaim: LogEntry = { ...ledger[0], detail: 'claimed for sending' };
    expect(decide(sending, ['mail_ref'], [oldClaim])).toMatchObject({ kind: 'changed', row: { status: 'NEEDS_REVIEW', mailRef: 'FQ-PASTED' }, columns: ['mail_ref'] });
  });

  it('a row of no submission (no event_id, no payload) is left alone', () => {
    expect(decide(repliedRow('', { eventId: '', payload: '' }), ['event_id'])).toEqual({ kind: 'intact' });
  });
});
