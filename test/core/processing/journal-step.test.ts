// The run's Journal check: a submission removed from Queue by hand is put back for a person, once; a finished one is not; rows the Journal lacks are journaled.
import { describe, expect, it } from 'vitest';
import { journalEntryOf, journalKeyOf } from '../../../src/core/domain/queue/journal-line';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { MemoryJournal, pendingRow, T0, typeformFixture, world, type World } from '../memory-ports';

/** Submission n as intake queues it: the payload carries the row's own event_id, token and address. */
function submissionRow(n: number, patch: Partial<QueueRow> = {}): QueueRow {
  const body = JSON.parse(typeformFixture('essay-submission'));
  body.event_id = `evt-${n}`;
  body.form_response.token = `tok-${n}`;
  body.form_response.answers[1].email = `r${n}@example.com`;
  return pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, payload: JSON.stringify(body), receivedAt: T0 - 60_000, ...patch });
}

/** A world whose rows are all journaled, as intake leaves them, with the Journal check's state from before any run. */
function journaled(rows: QueueRow[], props: Record<string, string> = {}): World & { journal: MemoryJournal } {
  const w = world(rows, props) as World & { journal: MemoryJournal };
  w.journal = new MemoryJournal();
  w.journal.lines = rows.map((row) => journalEntryOf(row, row.receivedAt ?? T0));
  w.deps.journal = w.journal;
  return w;
}

const run = (w: World) => runProcessing(w.deps, { startedAt: w.clock.now() });
const line = (eventId: string, minute: number, from: string, to: string, detail = ''): LogEntry => ({ at: T0 - 60 * 60_000 + minute * 60_000, eventId, from, to, by: 'system', detail });
const mailsTo = (w: World, address: string) => w.mailer.outbox.filter((mail) => mail.to === address);

describe('a submission removed from Queue by hand', () => {
  it('a PENDING row deleted before any run is put back in NEEDS_REVIEW with the reason, one Log line and one incident, and is not mailed', () => {
    const w = journaled([submissionRow(1), submissionRow(2)]);
    w.queue.rows = w.queue.rows.filter((row) => row.eventId !== 'evt-2');
    const summary = run(w);
    const back = w.queue.rows.find((row) => row.eventId === 'evt-2');
    expect(back).toMatchObject({ status: 'NEEDS_REVIEW', responseToken: 'tok-2', recipient: 'r2@example.com', formId: 'Wr1tE5sy' });
    expect(back?.error).toMatch(/^RESTORED: its row was removed from Queue by hand \(noticed .*\) and put back from the Journal; set PENDING to answer it, SKIPPED to drop it$/);
    expect(back?.submission).toContain('Mina Okafor');
    expect(w.audit.entries.filter((entry) => entry.eventId === 'evt-2').map((entry) => [entry.from, entry.to])).toEqual([['', 'NEEDS_REVIEW']]);
    expect(w.incidents.raised.filter((incident) => incident.code === 'ROWS_RESTORED')).toEqual([
      { code: 'ROWS_RESTORED', detail: '1 submission(s) were removed from Queue by hand and restored from the Journal, in NEEDS_REVIEW (reason RESTORED)', rows: [back?.rowNumber] },
    ]);
    expect(mailsTo(w, 'r1@example.com')).toHaveLength(1);
    expect(mailsTo(w, 'r2@example.com')).toHaveLength(0);
    // Open as the check found them (before this run mailed row 1): the next check settles row 1.
    expect(summary.journal).toEqual({ next: 4, open: ['tf:Wr1tE5sy:tok-1', 'tf:Wr1tE5sy:tok-2'] });
  });

  it('a whole row pasted over another: the overwritten submission comes back, the copy becomes DUPLICATE, and nobody is mailed twice', () => {
    const w = journaled([submissionRow(1), submissionRow(2)]);
    const copy = { ...w.queue.row(2), rowNumber: 3 };
    w.queue.rows = [w.queue.row(2), copy];
    run(w);
    run(w);
    const statuses = w.queue.rows.map((row) => [row.eventId, row.status]);
    expect(statuses).toEqual([['evt-1', 'SENT'], ['evt-1', 'DUPLICATE'], ['evt-2', 'NEEDS_REVIEW']]);
    expect(mailsTo(w, 'r1@example.com')).toHaveLength(1);
    expect(mailsTo(w, 'r2@example.com')).toHaveLength(0);
    expect(w.incidents.codes().filter((code) => code === 'ROWS_RESTORED')).toHaveLength(1);
  });

  it('is put back once: the next run finds its row and restores nothing', () => {
    const w = journaled([submissionRow(1)]);
    w.queue.rows = [];
    run(w);
    run(w);
    expect(w.queue.rows.map((row) => row.eventId)).toEqual(['evt-1']);
    expect(w.incidents.codes().filter((code) => code === 'ROWS_RESTORED')).toHaveLength(1);
  });

  it('deleted again after it was put back (still unfinished), it comes back again', () => {
    const w = journaled([submissionRow(1)]);
    w.queue.rows = [];
    run(w);
    w.queue.rows = [];
    run(w);
    expect(w.queue.rows.map((row) => [row.eventId, row.status])).toEqual([['evt-1', 'NEEDS_REVIEW']]);
  });

  it('a row deleted while its send claim has no recorded outcome comes back with the claim\'s mail_ref, telling the person to look in Sent first', () => {
    const w = journaled([submissionRow(1, { status: 'SENDING', mailRef: 'FQ-CLAIM1', claimedAt: T0 - 30 * 60_000, result: 'Dear Mina' })]);
    w.audit.append([line('evt-1', 1, 'READY', 'SENDING', 'claimed for sending [ledger: mail_ref=FQ-CLAIM1]')]);
    w.queue.rows = [];
    run(w);
    expect(w.queue.rows[0]).toMatchObject({ status: 'NEEDS_REVIEW', mailRef: 'FQ-CLAIM1' });
    expect(w.queue.rows[0].error).toContain('the Log shows a send claimed at');
    expect(w.queue.rows[0].error).toContain('(FQ-CLAIM1) that may have gone: look in Sent before you set PENDING');
    expect(w.mailer.outbox).toHaveLength(0);
  });
});

describe('what is not put back', () => {
  it.each<[string, LogEntry[]]>([
    ['a SENT row deleted by staff (a tidy-up)', [line('evt-1', 1, 'READY', 'SENDING'), line('evt-1', 2, 'SENDING', 'SENT')]],
    ['a SKIPPED row deleted by staff', [{ ...line('evt-1', 1, 'FAILED', 'SKIPPED'), by: 'ana@school.example' }]],
  ])('%s', (_name, history) => {
    const w = journaled([submissionRow(1, { status: 'SENT' })]);
    w.deps.journalState = { next: 2, open: [] };
    w.audit.append(history);
    w.queue.rows = [];
    run(w);
    expect(w.queue.rows).toEqual([]);
    expect(w.incidents.codes()).not.toContain('ROWS_RESTORED');
  });

  it('an archived submission (looked for in the Archive before the Log)', () => {
    const w = journaled([submissionRow(1)]);
    w.queue.rows = [];
    w.queue.archived.add('tok-1');
    run(w);
    expect(w.queue.rows).toEqual([]);
    expect(w.audit.lookups).toEqual([]);
  });

  // doPost takes no lock of the run's: it appends a row and then its Journal line at any time. A line the check reads
  // after the run read Queue may name a row that was appended in between (CI saw 41 rows for 40 deliveries).
  it('a submission doPost queued and journaled after the run read Queue is not put back: Queue is read again first, the row is answered once, and it stays open', () => {
    const w = journaled([submissionRow(1)]);
    const linesFrom = w.journal.linesFrom.bind(w.journal);
    w.journal.linesFrom = (from: number) => {
      const late = submissionRow(2, { rowNumber: 3 });
      w.queue.rows.push(late);
      w.journal.lines.push(journalEntryOf(late, T0));
      return linesFrom(from);
    };
    const summary = run(w);
    // The run goes on with Queue as read again: the late row is answered like any other, once.
    expect(w.queue.rows.filter((row) => row.eventId === 'evt-2').map((row) => row.status)).toEqual(['SENT']);
    expect(mailsTo(w, 'r2@example.com')).toHaveLength(1);
    expect(w.incidents.codes()).not.toContain('ROWS_RESTORED');
    expect(summary.journal?.open).toContain('tf:Wr1tE5sy:tok-2');
  });

  it('a submission settled at an earlier check is not looked at again: only the open ones and the new lines are', () => {
    const w = journaled([submissionRow(1, { status: 'SENT' }), submissionRow(2)]);
    const first = run(w);
    expect(first.journal).toEqual({ next: 4, open: ['tf:Wr1tE5sy:tok-2'] });
    w.deps.journalState = first.journal;
    w.queue.rows = [];
    run(w);
    expect(w.queue.rows).toEqual([]);
  });
});

describe('rows the Journal lacks, and a missing Journal', () => {
  it('unfinished rows with no Journal line (its append failed, a deployment from before the Journal) are journaled by the run', () => {
    const w = journaled([]);
    w.queue.rows = [submissionRow(1, { rowNumber: 2, status: 'AWAITING_APPROVAL', result: 'Dear Mina' }), submissionRow(2, { rowNumber: 3, status: 'SENT' })];
    run(w);
    expect(w.journal.lines.map((entry) => [entry.key, entry.eventId])).toEqual([['tf:Wr1tE5sy:tok-1', 'evt-1']]);
    expect(journalKeyOf(w.queue.row(2))).toBe(w.journal.lines[0].key);
  });

  it('without a Journal sheet the run still mails and says CONFIG_MISSING is open', () => {
    const w = journaled([submissionRow(1)]);
    w.journal.missing = Object.assign(new Error('The Journal sheet is missing. Run formqueue → Set up / repair.'), { code: 'CONFIG_MISSING' });
    const summary = run(w);
    expect(mailsTo(w, 'r1@example.com')).toHaveLength(1);
    expect(summary.journalMissing).toBe('The Journal sheet is missing. Run formqueue → Set up / repair.');
    expect(summary.journal).toBeUndefined();
  });

  it('a run with no Journal wired makes no check', () => {
    const w = world([submissionRow(1)]);
    expect(run(w).journal).toBeUndefined();
  });
});
