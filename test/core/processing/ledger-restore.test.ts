// The Log's send ledger puts back the system columns a person changed while the on-edit guard could not run.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import { factsOf, ledgerRepairOf, ledgerStateOf, looksEditedByHand, withLedgerFacts } from '../../../src/core/send-ledger';
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

  it('a line without them (older lines, other moves) has none', () => {
    expect(factsOf('mailed to the respondent (FQ-7K2M9Q)')).toEqual({});
    expect(withLedgerFacts('retry', {})).toBe('retry');
  });
});

describe('ledgerRepairOf: a row showing its ledger status holds that line’s values', () => {
  it.each<[string, Record<string, unknown>, LogEntry[], string[] | null]>([
    ['SENT, sent_at cleared', { sentAt: null }, [claim, sent], ['sent_at']],
    ['SENT, mail_ref cleared', { mailRef: '' }, [claim, sent], ['mail_ref']],
    ['SENT, both cleared', { sentAt: null, mailRef: '' }, [claim, sent], ['mail_ref', 'sent_at']],
    ['SENT, mail_ref typed over', { mailRef: 'FQ-OTHER1' }, [claim, sent], ['mail_ref']],
    ['SENT, as the ledger says', {}, [claim, sent], null],
    ['SENDING, claimed_at and mail_ref cleared', { status: 'SENDING', sentAt: null, claimedAt: null, mailRef: '' }, [claim], ['mail_ref', 'claimed_at']],
    ['a person asked for a new reply since: nothing stands', { status: 'PENDING', sentAt: null }, [claim, sent, line(T0 - MINUTE, 'NEEDS_REVIEW', 'PENDING', 'retry', 'ana@example.org')], null],
    ['the row moved on from the ledger status', { status: 'SKIPPED', sentAt: null }, [claim, sent], null],
    ['no ledger line at all', { sentAt: null }, [], null],
    ['an older SENT line without facts vouches for nothing it does not say', { sentAt: null }, [line(SENT_AT, 'SENDING', 'SENT', 'mailed to the respondent (FQ-7K2M9Q)')], null],
    ['marked SENT by a person after checking: that line is the ledger', { sentAt: null, mailRef: '' },
      [line(T0 - 2 * MINUTE, 'NEEDS_REVIEW', 'SENT', withLedgerFacts('marked sent by ana after checking by hand', { sentAt: T0 - 2 * MINUTE }), 'ana@example.org')], ['sent_at']],
    ['a paste of SENT ("(unknown)" → SENT) is no check by hand', { sentAt: null }, [line(T0 - 2 * MINUTE, '(unknown)', 'SENT', 'multi-cell edit', 'ana@example.org')], null],
  ])('%s', (_name, patch, history, columns) => {
    const repair = ledgerRepairOf(sentRow(patch), history);
    expect(repair?.columns ?? null).toEqual(columns);
    if (repair) {
      expect(repair.row.sentAt === null || repair.row.sentAt === SENT_AT || repair.row.sentAt === T0 - 2 * MINUTE).toBe(true);
      if (columns?.includes('mail_ref')) expect(repair.row.mailRef).toBe(REF);
      if (columns?.includes('claimed_at')) expect(repair.row.claimedAt).toBe(CLAIMED_AT);
    }
  });

  it('a Log sorted by staff is read in time order', () => {
    expect(ledgerStateOf([sent, claim])?.status).toBe('SENT');
  });

  it('only rows whose cells contradict their own status are looked up', () => {
    expect(looksEditedByHand(sentRow())).toBe(false);
    expect(looksEditedByHand(sentRow({ sentAt: null }))).toBe(true);
    expect(looksEditedByHand(sentRow({ mailRef: '' }))).toBe(true);
    expect(looksEditedByHand(sentRow({ status: 'SENDING', sentAt: null, claimedAt: null }))).toBe(true);
    expect(looksEditedByHand(sentRow({ status: 'READY', sentAt: null }))).toBe(false);
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
