// The run's ledger step (ledger-step.ts): system columns a person changed are put back from the Log, with a Log line and a note on each cell.
import { describe, expect, it } from 'vitest';
import { restoreFromLedger } from '../../../src/core/processing/ledger-step';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { withLedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import { pendingRow, runOf, T0, world } from '../memory-ports';

const MINUTE = 60_000;
const NOW = T0 + 7000;
const CLAIMED_AT = T0 - 5 * MINUTE;
const SENT_AT = T0 - 4 * MINUTE;
const iso = (at: number) => new Date(at).toISOString();
const MEMORY = "these columns are formqueue's memory of this row (how a reply is never mailed twice)";

const refOf = (eventId: string) => `FQ-${eventId.toUpperCase()}`;
const line = (eventId: string, at: number, from: string, to: string, detail: string): LogEntry => ({ at, eventId, from, to, by: 'system', detail });
const claimLine = (eventId: string) => line(eventId, CLAIMED_AT, 'READY', 'SENDING', withLedgerFacts('claimed for sending', { mailRef: refOf(eventId), claimedAt: CLAIMED_AT }));
const sentLine = (eventId: string) => line(eventId, SENT_AT, 'SENDING', 'SENT', withLedgerFacts(`mailed to the respondent (${refOf(eventId)})`, { mailRef: refOf(eventId), sentAt: SENT_AT }));
/** A row of `eventId` in `status`, with the mail_ref its claim recorded; sent_at and claimed_at as given. */
const rowOf = (eventId: string, status: string, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId, responseToken: '', status, result: 'Dear Mina', mailRef: refOf(eventId), ...patch });

function setUp(rows: QueueRow[], history: LogEntry[]) {
  const w = world(rows);
  w.audit.batches.push(history);
  w.clock.time = NOW;
  return { w, run: runOf(w) };
}

describe('restoreFromLedger: rows whose cells contradict their status get the Log\'s values back', () => {
  it('looks up only the rows edited by hand, puts back each one\'s columns, logs each put-back and notes each cell put back', () => {
    const sentNoTime = rowOf('aaaaaa', 'SENT', { sentAt: null });
    const agrees = rowOf('bbbbbb', 'SENT', { sentAt: SENT_AT });
    const sendingCleared = rowOf('cccccc', 'SENDING', { mailRef: '', claimedAt: null });
    const noLedger = rowOf('dddddd', 'SENT', { sentAt: null });
    const { w, run } = setUp([sentNoTime, agrees, sendingCleared, noLedger], [claimLine('aaaaaa'), sentLine('aaaaaa'), claimLine('bbbbbb'), sentLine('bbbbbb'), claimLine('cccccc')]);
    const logged = w.audit.entries.length;
    restoreFromLedger(run);
    expect(w.audit.lookups).toEqual([['aaaaaa', 'cccccc', 'dddddd']]);
    const fixedA = { ...sentNoTime, rowNumber: 2, sentAt: SENT_AT, updatedAt: NOW };
    const fixedC = { ...sendingCleared, rowNumber: 4, mailRef: 'FQ-CCCCCC', claimedAt: CLAIMED_AT, updatedAt: NOW };
    expect(w.queue.writes).toEqual([[fixedA, fixedC]]);
    expect(w.queue.rows).toEqual([fixedA, { ...agrees, rowNumber: 3 }, fixedC, { ...noLedger, rowNumber: 5 }]);
    const detailA = `put back sent_at (empty) → ${iso(SENT_AT)} from the Log's SENT line of ${iso(SENT_AT)}: ${MEMORY}`;
    const detailC = `put back mail_ref (empty) → FQ-CCCCCC, claimed_at (empty) → ${iso(CLAIMED_AT)} from the Log's SENDING line of ${iso(CLAIMED_AT)}: ${MEMORY}`;
    expect(w.audit.entries.slice(logged)).toEqual([
      { at: NOW, eventId: 'aaaaaa', from: 'SENT', to: 'SENT', by: 'system', detail: detailA },
      { at: NOW, eventId: 'cccccc', from: 'SENDING', to: 'SENDING', by: 'system', detail: detailC },
    ]);
    expect([...w.queue.notes]).toEqual([
      ['2:sent_at', `formqueue ${detailA}.`],
      ['4:mail_ref', `formqueue ${detailC}.`],
      ['4:claimed_at', `formqueue ${detailC}.`],
    ]);
    expect(run.rows).toEqual(w.queue.rows);
  });

  it('a run whose rows all agree with their status reads no Log line and writes nothing', () => {
    const { w, run } = setUp([rowOf('aaaaaa', 'SENT', { sentAt: SENT_AT }), rowOf('bbbbbb', 'SENDING', { claimedAt: CLAIMED_AT }), rowOf('cccccc', 'READY')], [claimLine('aaaaaa'), sentLine('aaaaaa')]);
    let noted = 0;
    w.queue.noteCells = () => {
      noted++;
    };
    restoreFromLedger(run);
    expect(w.audit.lookups).toEqual([]);
    expect(w.queue.writes).toEqual([]);
    expect(w.queue.flushes).toBe(0);
    expect(noted).toBe(0);
    expect(w.audit.entries).toEqual([claimLine('aaaaaa'), sentLine('aaaaaa')]);
  });

  it('a suspect row the ledger vouches for nothing of (no line, or a key the Log leaves out of its answer) is left as it is', () => {
    const { w, run } = setUp([rowOf('aaaaaa', 'SENT', { sentAt: null })], []);
    w.audit.historiesOf = (keys) => {
      w.audit.lookups.push([...keys]);
      return new Map();
    };
    const before = w.queue.rows.map((row) => ({ ...row }));
    restoreFromLedger(run);
    expect(w.audit.lookups).toEqual([['aaaaaa']]);
    expect(w.queue.rows).toEqual(before);
    expect(w.queue.writes).toEqual([]);
    expect(w.audit.entries).toEqual([]);
    expect(w.queue.notes.size).toBe(0);
  });

  it('a row a person moved between the read and the write is left alone: no Log line, no note; the others are put back', () => {
    const { w, run } = setUp([rowOf('aaaaaa', 'SENT', { sentAt: null }), rowOf('bbbbbb', 'SENT', { sentAt: null })], [claimLine('aaaaaa'), sentLine('aaaaaa'), claimLine('bbbbbb'), sentLine('bbbbbb')]);
    w.queue.beforeWriteRows = (_rows, queue) => queue.edit(2, { status: 'SKIPPED' });
    const logged = w.audit.entries.length;
    restoreFromLedger(run);
    expect(w.queue.rows.map((row) => [row.status, row.sentAt])).toEqual([['SKIPPED', null], ['SENT', SENT_AT]]);
    expect(w.audit.entries.slice(logged).map((entry) => entry.eventId)).toEqual(['bbbbbb']);
    expect([...w.queue.notes.keys()]).toEqual(['3:sent_at']);
  });
});
