// One Queue cell edited with no old value told (a single-cell paste, in either shape Sheets may send): every system
// column and the status of a sent or claimed row are put back from the records, never from an empty guess.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueHeader, QueueRow } from '../../../src/core/domain/queue/queue-row';
import { withLedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import { cellBeforeEdit, readSingleCellEdit, toldOldValue } from '../../../src/core/staff/edit-event';
import { decideStatusEdit } from '../../../src/core/staff/edit-guard';
import { decideSystemBlockRow } from '../../../src/core/staff/system-block';
import { repliedRow, STAFF, T0 } from '../fakes/rows';

const ID = 'evt-paste';
const REF = 'FQ-7K2M9Q';
const SENT_AT = T0 - 60_000;
const CLAIMED_AT = SENT_AT - 1000;
const payload = JSON.stringify({ event_id: ID, event_type: 'form_response', form_response: { token: 'tok' } });
const claim: LogEntry = { at: CLAIMED_AT, eventId: ID, from: 'READY', to: 'SENDING', by: 'system', detail: withLedgerFacts('claimed for sending', { mailRef: REF, claimedAt: CLAIMED_AT }) };
const send: LogEntry = { at: SENT_AT, eventId: ID, from: 'SENDING', to: 'SENT', by: 'system', detail: withLedgerFacts(`mailed to the respondent (${REF})`, { mailRef: REF, sentAt: SENT_AT }) };
const sent = (patch: Partial<QueueRow> = {}) => repliedRow('SENT', { eventId: ID, payload, mailRef: REF, sentAt: SENT_AT, ...patch });
const sending = (patch: Partial<QueueRow> = {}) => repliedRow('SENDING', { eventId: ID, payload, mailRef: REF, claimedAt: CLAIMED_AT, ...patch });

/**
 * The event shapes of one pasted cell: Google says nothing of pastes (developers.google.com/apps-script/guides/
 * triggers/events#edit: value/oldValue for a single cell only); tanaikech/GetEditType (GetEditType.js) lists a pasted
 * cell as OTHER (neither) and as PUT_VALUE (a value, no oldValue). `text` is what the cell shows after the paste.
 */
const SHAPES: Array<[string, (text: string) => { value?: string; oldValue?: string }]> = [
  ['paste=none (neither value nor oldValue)', () => ({})],
  ['paste=value-only (a value, no oldValue)', (text) => (text === '' ? {} : { value: text })],
];

/** A pasted cell's value as the row model holds it: times as epoch ms, '' as absent. */
const PASTES: Array<[string, QueueHeader, Partial<QueueRow>, string]> = [
  ['a time over sent_at', 'sent_at', { sentAt: T0 }, new Date(T0).toISOString()],
  ['an empty cell over sent_at', 'sent_at', { sentAt: null }, ''],
  ['another reference over mail_ref', 'mail_ref', { mailRef: 'FQ-PASTED' }, 'FQ-PASTED'],
  ['an empty cell over mail_ref', 'mail_ref', { mailRef: '' }, ''],
  ['a time into claimed_at', 'claimed_at', { claimedAt: T0 }, new Date(T0).toISOString()],
  ['another id over event_id', 'event_id', { eventId: 'x-1' }, 'x-1'],
];

describe.each(SHAPES)('%s', (_shape, shapeOf) => {
  // The guard routes a system cell with no old value told to the records (system-edit-guard.ts): the payload for
  // event_id, the Log's ledger line for the rest.
  const judge = (row: QueueRow, header: QueueHeader, text: string, history: LogEntry[]) => {
    expect(toldOldValue(shapeOf(text))).toBeNull();
    return decideSystemBlockRow({ row, touched: [header], history, wholeRows: false, singleCell: true, context: STAFF });
  };

  it.each(PASTES)('%s of a SENT row: the row holds its record of the sent reply again', (_name, header, pasted, text) => {
    const decision = judge(sent(pasted), header, text, [claim, send]);
    expect(decision.kind).toBe('changed');
    if (decision.kind !== 'changed') return;
    expect(decision.row).toMatchObject({ status: 'SENT', eventId: ID, mailRef: REF, sentAt: SENT_AT, claimedAt: null });
    expect(decision.columns).toEqual([header]);
    expect(decision.note).toMatch(new RegExp(`^formqueue \\(edit by ana@example\\.org\\): edit of ${header} with no previous value given: put back ${header}`));
  });

  it.each(PASTES)('%s of a SENDING row: the row holds its claim as the ledger recorded it', (_name, header, pasted, text) => {
    const row = sending(pasted);
    const decision = judge(row, header, text, [claim]);
    // An empty cell pasted over sent_at, which a claimed row holds empty, changed nothing: the row is intact.
    const after = decision.kind === 'changed' ? decision.row : row;
    expect(after).toMatchObject({ status: 'SENDING', eventId: ID, mailRef: REF, claimedAt: CLAIMED_AT, sentAt: null });
  });

  it.each(PASTES.filter(([, header]) => header !== 'event_id'))('%s of a SENT row the Log knows nothing of: the guard writes nothing over it and notes that it could not be checked', (_name, header, pasted, text) => {
    const decision = judge(sent(pasted), header, text, []);
    expect(decision).toMatchObject({ kind: 'changed', row: { ...sent(pasted), updatedAt: T0 } });
    expect(decision.kind === 'changed' && decision.note).toMatch(/could not be put back \(Sheets gives no previous value\)/);
  });

  it.each<[string, string, 'refused' | 'unchanged']>([
    ['PENDING', 'SENT', 'refused'],
    ['READY', 'SENT', 'refused'],
    ['APPROVED', 'SENT', 'refused'],
    ['SENT', 'SENT', 'unchanged'],
    ['', 'SENT', 'refused'],
  ])('status %j pasted over a SENT row: judged from the Log\'s SENT, so it stays SENT', (to, expected, kind) => {
    const edit = shapeOf(to);
    expect(readSingleCellEdit({ ...edit, now: to })).toBe('old-unknown');
    const from = cellBeforeEdit('status', null, sent({ status: to }), [claim, send]);
    expect(from).toBe('SENT');
    const decision = decideStatusEdit({ from: from as string, to, row: sent({ status: to }), ...STAFF });
    expect(decision.kind).toBe(kind);
    if (decision.kind === 'refused') expect(decision.putBack).toBe(expected);
  });
});
