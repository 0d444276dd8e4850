// The Log's send ledger puts back the system columns a person changed while the on-edit guard could not run.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { describeRepair, factsOf, ledgerRepairOf, ledgerStateOf, looksEditedByHand, vouchedColumns, withLedgerFacts, type LedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import { pendingRow, T0, world } from '../memory-ports';

const MINUTE = 60_000;
const ID = 'evt-ledger';
const REF = 'FQ-7K2M9Q';
const SENT_AT = T0 - 4 * MINUTE;
const CLAIMED_AT = T0 - 5 * MINUTE;
const line = (at: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at, eventId: ID, from, to, by, detail });
const claim = line(CLAIMED_AT, 'READY', 'SENDING', withLedgerFacts('claimed for sending', { mailRef: REF, claimedAt: CLAIMED_AT }));
const sent = line(SENT_AT, 'SENDING', 'SENT', withLedgerFacts(`mailed to the respondent (${REF})`, { mailRef: REF, sentAt: SENT_AT }));
const sentRow = (patch = {}) => pendingRow({ eventId: ID, status: 'SENT', result: 'Dear Mina', mailRef: REF, sentAt: SENT_AT, ...patch });

describe('ledger facts in a Log line', () => {
  it('read back exactly what was written', () => {
    const detail = withLedgerFacts('mailed to the respondent (FQ-7K2M9Q)', { mailRef: REF, sentAt: SENT_AT, claimedAt: CLAIMED_AT });
    expect(detail).toBe(`mailed to the respondent (FQ-7K2M9Q) [ledger: mail_ref=${REF} sent_at=${new Date(SENT_AT).toISOString()} claimed_at=${new Date(CLAIMED_AT).toISOString()}]`);
    expect(factsOf(detail)).toEqual({ mailRef: REF, sentAt: SENT_AT, claimedAt: CLAIMED_AT });
  });

  it('a claim line records the account that claimed it, and an unknown account is left out', () => {
    const detail = withLedgerFacts('claimed for sending', { mailRef: REF, claimedAt: CLAIMED_AT, sender: 'ana@school.example' });
    expect(detail).toBe(`claimed for sending [ledger: mail_ref=${REF} claimed_at=${new Date(CLAIMED_AT).toISOString()} sender=ana@school.example]`);
    expect(factsOf(detail)).toEqual({ mailRef: REF, claimedAt: CLAIMED_AT, sender: 'ana@school.example' });
    expect(withLedgerFacts('claimed for sending', { mailRef: REF, sender: '' })).toBe(`claimed for sending [ledger: mail_ref=${REF}]`);
  });

  it('a line without them (older lines, other moves) has none', () => {
    expect(factsOf('mailed to the respondent (FQ-7K2M9Q)')).toEqual({});
    expect(withLedgerFacts('retry', {})).toBe('retry');
  });
});

describe('ledger facts: a fact the line does not hold in readable form is no fact', () => {
  const iso = (at: number) => new Date(at).toISOString();
  it.each<[string, string, LedgerFacts]>([
    ['an empty mail_ref', `mailed [ledger: mail_ref= sent_at=${iso(SENT_AT)}]`, { sentAt: SENT_AT }],
    ['a time that is not one', `claimed [ledger: claimed_at=${iso(CLAIMED_AT)} sent_at=yesterday]`, { claimedAt: CLAIMED_AT }],
    ['a column the ledger does not vouch for', `claimed [ledger: opened_at=${iso(CLAIMED_AT)}]`, {}],
    ['a part without a value', `claimed [ledger: mail_ref claimed_at=${iso(CLAIMED_AT)}]`, { claimedAt: CLAIMED_AT }],
    ['blanks between the facts', `claimed [ledger:  mail_ref=${REF}   claimed_at=${iso(CLAIMED_AT)} ]`, { mailRef: REF, claimedAt: CLAIMED_AT }],
  ])('%s', (_name, detail, facts) => {
    expect(factsOf(detail)).toEqual(facts);
  });
});

describe('ledgerStateOf: which line leaves the submission in which ledger status', () => {
  const ANA = 'ana@example.org';
  const checked = (from: string) => line(T0 - 2 * MINUTE, from, 'SENT', withLedgerFacts('marked sent by ana after checking by hand', { sentAt: T0 - 2 * MINUTE }), ANA);
  it.each<[string, LogEntry[], { status: string; facts: LedgerFacts } | null]>([
    ['a claim by the system', [claim], { status: 'SENDING', facts: { mailRef: REF, claimedAt: CLAIMED_AT } }],
    ['a claim and its send', [claim, sent], { status: 'SENT', facts: { mailRef: REF, sentAt: SENT_AT } }],
    ['a claim and its send written in the same millisecond, read in Log order', [{ ...claim, at: SENT_AT }, sent], { status: 'SENT', facts: { mailRef: REF, sentAt: SENT_AT } }],
    ['a person\'s line to SENDING is no claim', [line(CLAIMED_AT, 'READY', 'SENDING', withLedgerFacts('multi-cell edit', { mailRef: REF, claimedAt: CLAIMED_AT }), ANA)], null],
    ['a person marking a READY row SENT has checked nothing', [line(SENT_AT, 'READY', 'SENT', withLedgerFacts('marked sent', { sentAt: SENT_AT }), ANA)], null],
    ['a person marking a FAILED row SENT after checking by hand', [checked('FAILED')], { status: 'SENT', facts: { sentAt: T0 - 2 * MINUTE } }],
    ['claimed, then the mail quota refused it (nothing left)', [claim, line(SENT_AT, 'SENDING', 'READY')], null],
    ['claimed, then the platform refused the address (nothing left)', [claim, line(SENT_AT, 'SENDING', 'FAILED')], null],
    ['claimed, outcome unknown: the claim\'s mail_ref is kept', [claim, line(SENT_AT, 'SENDING', 'NEEDS_REVIEW', 'the send failed after it may have gone out')], { status: 'NEEDS_REVIEW', facts: { mailRef: REF } }],
    ['a system move to NEEDS_REVIEW with no claim standing', [line(SENT_AT, 'READY', 'NEEDS_REVIEW', 'ALREADY_SENT')], null],
    ['claimed, then a person moved the row back to READY: the claim stands', [claim, line(SENT_AT, 'SENDING', 'READY', 'moved', ANA)], { status: 'SENDING', facts: { mailRef: REF, claimedAt: CLAIMED_AT } }],
    ['sent, then a person asked for a new reply', [claim, sent, line(T0 - MINUTE, 'NEEDS_REVIEW', 'PENDING', 'retry', ANA)], null],
    ['sent, then the system put a cleared sent_at back (SENT → SENT): the send line still vouches', [claim, sent, line(T0 - MINUTE, 'SENT', 'SENT', 'put back sent_at (empty) → …')], { status: 'SENT', facts: { mailRef: REF, sentAt: SENT_AT } }],
    ['sent, a paste parked by the system, then marked SENT after checking: the send\'s mail_ref carries over',
      [claim, sent, line(T0 - 3 * MINUTE, 'READY', 'NEEDS_REVIEW', 'ALREADY_CLAIMED'), checked('NEEDS_REVIEW')], { status: 'SENT', facts: { mailRef: REF, sentAt: T0 - 2 * MINUTE } }],
  ])('%s', (_name, history, expected) => {
    const state = ledgerStateOf(history);
    expect(state && { status: state.status, facts: state.facts }).toEqual(expected);
  });
});

describe('ledgerRepairOf: a row showing its ledger status holds that line’s values', () => {
  it.each<[string, Partial<QueueRow>, LogEntry[], string[] | null, Partial<QueueRow>]>([
    ['SENT, sent_at cleared', { sentAt: null }, [claim, sent], ['sent_at'], { sentAt: SENT_AT }],
    ['SENT, mail_ref cleared', { mailRef: '' }, [claim, sent], ['mail_ref'], { mailRef: REF }],
    ['SENT, both cleared', { sentAt: null, mailRef: '' }, [claim, sent], ['mail_ref', 'sent_at'], { mailRef: REF, sentAt: SENT_AT }],
    ['SENT, mail_ref typed over', { mailRef: 'FQ-OTHER1' }, [claim, sent], ['mail_ref'], { mailRef: REF }],
    ['SENT, sent_at cleared and a claimed_at pasted in', { sentAt: null, claimedAt: T0 }, [claim, sent], ['sent_at', 'claimed_at'], { sentAt: SENT_AT, claimedAt: null }],
    ['SENT, as the ledger says', {}, [claim, sent], null, {}],
    ['SENDING, claimed_at and mail_ref cleared', { status: 'SENDING', sentAt: null, claimedAt: null, mailRef: '' }, [claim], ['mail_ref', 'claimed_at'], { mailRef: REF, claimedAt: CLAIMED_AT }],
    ['SENDING, a sent_at pasted in', { status: 'SENDING', sentAt: T0, claimedAt: CLAIMED_AT }, [claim], ['sent_at'], { sentAt: null }],
    ['a person asked for a new reply since: nothing stands', { status: 'PENDING', sentAt: null }, [claim, sent, line(T0 - MINUTE, 'NEEDS_REVIEW', 'PENDING', 'retry', 'ana@example.org')], null, {}],
    ['the row moved on from the ledger status', { status: 'SKIPPED', sentAt: null }, [claim, sent], null, {}],
    ['no ledger line at all', { sentAt: null }, [], null, {}],
    ['an older SENT line without facts vouches for nothing it does not say', { sentAt: null }, [line(SENT_AT, 'SENDING', 'SENT', 'mailed to the respondent (FQ-7K2M9Q)')], null, {}],
    ['marked SENT by a person after checking: that line is the ledger, and says nothing of mail_ref', { sentAt: null, mailRef: '' },
      [line(T0 - 2 * MINUTE, 'NEEDS_REVIEW', 'SENT', withLedgerFacts('marked sent by ana after checking by hand', { sentAt: T0 - 2 * MINUTE }), 'ana@example.org')], ['sent_at'], { sentAt: T0 - 2 * MINUTE }],
    ['a paste of SENT ("(unknown)" → SENT) is no check by hand', { sentAt: null }, [line(T0 - 2 * MINUTE, '(unknown)', 'SENT', 'multi-cell edit', 'ana@example.org')], null, {}],
  ])('%s', (_name, patch, history, columns, putBack) => {
    const repair = ledgerRepairOf(sentRow(patch), history);
    expect(repair?.columns ?? null).toEqual(columns);
    // Every other cell is the row's own: a repair changes only the columns it names.
    if (repair) expect(repair.row).toEqual({ ...sentRow(patch), ...putBack });
  });

  it.each<[string, Partial<QueueRow>, LogEntry[], string[]]>([
    ['SENT as its send line says: every column', {}, [claim, sent], ['mail_ref', 'sent_at', 'claimed_at']],
    ['SENT by an older line without facts: only the column the send cleared', {}, [line(SENT_AT, 'SENDING', 'SENT', 'mailed')], ['claimed_at']],
    ['a row that moved on from the ledger status: none', { status: 'SKIPPED' }, [claim, sent], []],
    ['no ledger line: none', {}, [], []],
  ])('vouchedColumns: %s', (_name, patch, history, columns) => {
    expect(vouchedColumns(sentRow(patch), history)).toEqual(columns);
  });

  it('a Log sorted by staff is read in time order', () => {
    expect(ledgerStateOf([sent, claim])?.status).toBe('SENT');
  });

  it.each<[string, Partial<QueueRow>, boolean]>([
    ['SENT as sent: not looked up', {}, false],
    ['SENT without sent_at: looked up', { sentAt: null }, true],
    ['SENT without mail_ref: looked up', { mailRef: '' }, true],
    ['SENDING as claimed: not looked up', { status: 'SENDING', sentAt: null, claimedAt: CLAIMED_AT }, false],
    ['SENDING without claimed_at: looked up', { status: 'SENDING', sentAt: null, claimedAt: null }, true],
    ['SENDING without mail_ref: looked up', { status: 'SENDING', sentAt: null, claimedAt: CLAIMED_AT, mailRef: '' }, true],
    ['READY without sent_at: not looked up', { status: 'READY', sentAt: null }, false],
    ['SENT without sent_at or event_id: no ledger to look in', { eventId: '', sentAt: null }, false],
  ])('only rows whose cells contradict their own status are looked up: %s', (_name, patch, looked) => {
    expect(looksEditedByHand(sentRow(patch))).toBe(looked);
  });

  it('the repair says what was put back, from which line', () => {
    const iso = (at: number) => new Date(at).toISOString();
    const previous = sentRow({ sentAt: null, mailRef: '', claimedAt: T0 });
    const repair = ledgerRepairOf(previous, [claim, sent]);
    expect(repair && describeRepair(repair, previous)).toBe(
      `put back mail_ref (empty) → ${REF}, sent_at (empty) → ${iso(SENT_AT)}, claimed_at ${iso(T0)} → (empty) from the Log's SENT line of ${iso(SENT_AT)}: ` +
        "these columns are formqueue's memory of this row (how a reply is never mailed twice)",
    );
  });
});

describe('processing puts back what the ledger recorded', () => {
  it('a SENT row whose sent_at a person cleared gets it back, with a note on the cell and a Log line, and no mail', () => {
    const w = world([sentRow({ sentAt: null })]);
    w.audit.batches.push([claim, sent]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: SENT_AT, mailRef: REF });
    expect(w.queue.notes.get('2:sent_at')).toMatch(/^formqueue put back sent_at \(empty\) → .* from the Log's SENT line of /);
    const put = w.audit.entries.filter((entry) => entry.at === T0);
    expect(put).toEqual([expect.objectContaining({ eventId: ID, from: 'SENT', to: 'SENT', by: 'system' })]);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a run where every row agrees with its cells reads no Log line for it', () => {
    const w = world([sentRow(), pendingRow({ eventId: 'evt-new' })]);
    const asked: string[][] = [];
    const historiesOf = w.audit.historiesOf.bind(w.audit);
    w.audit.historiesOf = (ids) => { asked.push([...ids]); return historiesOf(ids); };
    runProcessing(w.deps, { startedAt: T0 });
    expect(asked.filter((ids) => ids.includes(ID))).toEqual([]);
    expect(w.queue.notes.size).toBe(0);
  });

  it('a row a person moved between the read and the write is left alone (compare-and-set)', () => {
    const w = world([sentRow({ sentAt: null })]);
    w.audit.batches.push([claim, sent]);
    w.queue.beforeWriteRows = (_rows, queue) => { queue.edit(2, { status: 'SKIPPED' }); w.queue.beforeWriteRows = null; };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2)).toMatchObject({ status: 'SKIPPED', sentAt: null });
    expect(w.queue.notes.size).toBe(0);
  });
});
