// The run's Journal check: a submission removed from Queue by hand is put back for a person, once; a finished one is not; rows the Journal lacks are journaled.
import { describe, expect, it } from 'vitest';
import { journalEntryOf, journalKeyOf } from '../../../src/core/domain/queue/journal-line';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import { checkJournal } from '../../../src/core/processing/journal-step';
import type { Run } from '../../../src/core/processing/run-context';
import { emptyRow, type QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, MemoryJournal, pendingRow, runOf, T0, typeformFixture, world, type World } from '../memory-ports';

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

/** The Journal check alone, over a run as runProcessing starts it (its rows read from the world's Queue). */
function checked(w: World, prepare: (r: Run) => void = () => undefined): Run {
  const r = runOf(w);
  prepare(r);
  checkJournal(r);
  return r;
}

/** The submission cell intake writes for submission n's payload (the essay fixture with its own address). */
const answersOf = (n: number) =>
  `Your name: Mina Okafor\nEmail for your feedback: r${n}@example.com\nCourse: Technical writing\nWhat should the feedback focus on?: Structure, Clarity\nPaste your essay: Caching is the art of remembering answers you already paid for.\n  \n  In our service, the first request for a report takes four seconds because it joins six tables. We added a cache in front of it, keyed by the report parameters, and now repeat requests return in twenty milliseconds. The hard part was not the cache but deciding when an entry is stale: we chose a five-minute expiry plus an explicit purge when the underlying data changes.\nHow confident are you in this draft? (0-10): 6\nMay we use an AI assistant to draft your feedback?: Yes\nDue date: 2026-11-21\nhidden.cohort: 2026-autumn\nhidden.student_id: S-10442`;

const RESTORED_REASON = 'RESTORED: its row was removed from Queue by hand (noticed 2026-11-20T10:00:00.000Z) and put back from the Journal; set PENDING to answer it, SKIPPED to drop it';
const PUT_BACK_DETAIL = 'put back from the Journal line of 2026-11-20T09:59:00.000Z: the row was removed from Queue by hand before the submission finished';

/** Submission n as the check puts it back from its Journal line, at sheet row `rowNumber`. */
function restoredAs(n: number, rowNumber: number, patch: Partial<QueueRow> = {}): QueueRow {
  return {
    ...emptyRow(),
    rowNumber,
    status: 'NEEDS_REVIEW',
    eventId: `evt-${n}`,
    receivedAt: T0 - 60_000,
    formId: 'Wr1tE5sy',
    responseToken: `tok-${n}`,
    recipient: `r${n}@example.com`,
    submission: answersOf(n),
    payload: submissionRow(n).payload,
    error: RESTORED_REASON,
    updatedAt: T0,
    ...patch,
  };
}

const key = (n: number) => `tf:Wr1tE5sy:tok-${n}`;

describe('the Journal check on its own', () => {
  it('a Journal that fails for another reason than a missing sheet stops the check with that error', () => {
    const w = journaled([submissionRow(1)]);
    const outage = new Error('Exception: Service Spreadsheets timed out');
    w.journal.missing = outage;
    const r = runOf(w);
    expect(() => checkJournal(r)).toThrow(outage);
    expect(r.summary.journalMissing).toBeUndefined();
    expect(r.summary.journal).toBeUndefined();
  });

  it('an unfinished row the Journal lacks is journaled with its own received time, one with no received time with the check\'s time', () => {
    const w = journaled([]);
    const first = submissionRow(1, { rowNumber: 2 });
    const second = submissionRow(2, { rowNumber: 3, receivedAt: null });
    w.queue.rows = [first, second];
    const r = checked(w);
    expect(w.journal.lines).toEqual([
      { receivedAt: T0 - 60_000, key: key(1), eventId: 'evt-1', payload: first.payload },
      { receivedAt: T0, key: key(2), eventId: 'evt-2', payload: second.payload },
    ]);
    expect(r.summary.journal).toEqual({ next: 2, open: [key(1), key(2)] });
  });

  it('a check that finds nothing missing reads Queue no second time and marks ROWS_RESTORED as gone', () => {
    const w = journaled([submissionRow(1)]);
    const r = checked(w, () => {
      w.queue.failOn = { method: 'readAll', error: new Error('Queue read a second time') };
    });
    expect(r.summary.journal).toEqual({ next: 3, open: [key(1)] });
    expect(r.gone).toEqual(new Set(['ROWS_RESTORED']));
    expect(w.incidents.raised).toEqual([]);
  });

  it('a row doPost appended after the run read Queue is found by the second read: the Archive is not read and it stays open', () => {
    const w = journaled([submissionRow(1), submissionRow(2)]);
    const late = w.queue.rows.pop() as QueueRow;
    const r = checked(w, () => {
      w.queue.rows.push(late);
      w.queue.failOn = { method: 'archivedKeys', error: new Error('Archive read') };
    });
    expect(r.rows.map((row) => row.eventId)).toEqual(['evt-1', 'evt-2']);
    expect(r.summary.journal).toEqual({ next: 4, open: [key(1), key(2)] });
    expect(w.incidents.raised).toEqual([]);
  });

  it('two deleted rows come back, each from its own Journal line, with one Log line each and one incident naming only them', () => {
    const earlier = submissionRow(1, { status: 'NEEDS_REVIEW', error: 'RESTORED: put back by an earlier run' });
    const w = journaled([earlier, submissionRow(2), submissionRow(3)]);
    w.queue.rows = w.queue.rows.filter((row) => row.eventId === 'evt-1');
    const r = checked(w);
    expect(w.queue.rows).toEqual([{ ...earlier, rowNumber: 2 }, restoredAs(2, 3), restoredAs(3, 4)]);
    expect(w.audit.entries).toEqual([
      { at: T0, from: '', to: 'NEEDS_REVIEW', by: 'system', detail: PUT_BACK_DETAIL, eventId: 'evt-2', submission: key(2) },
      { at: T0, from: '', to: 'NEEDS_REVIEW', by: 'system', detail: PUT_BACK_DETAIL, eventId: 'evt-3', submission: key(3) },
    ]);
    expect(w.incidents.raised).toEqual([
      { code: 'ROWS_RESTORED', detail: '2 submission(s) were removed from Queue by hand and restored from the Journal, in NEEDS_REVIEW (reason RESTORED)', rows: [3, 4] },
    ]);
    expect(r.summary.journal).toEqual({ next: 5, open: [key(1), key(2), key(3)] });
    expect(r.gone).toEqual(new Set());
  });

  it('a redelivery of the same response that doPost appends while a row is put back is not named by the incident', () => {
    const w = journaled([submissionRow(1)]);
    w.queue.rows = [];
    const append = w.queue.appendRows.bind(w.queue);
    w.queue.appendRows = (rows) => {
      w.queue.rows.push(submissionRow(1, { eventId: 'evt-1b', rowNumber: 2 }));
      append(rows);
    };
    checked(w);
    expect(w.queue.rows.map((row) => [row.rowNumber, row.eventId, row.status])).toEqual([
      [2, 'evt-1b', 'PENDING'],
      [3, 'evt-1', 'NEEDS_REVIEW'],
    ]);
    expect(w.incidents.raised).toEqual([
      { code: 'ROWS_RESTORED', detail: '1 submission(s) were removed from Queue by hand and restored from the Journal, in NEEDS_REVIEW (reason RESTORED)', rows: [3] },
    ]);
  });

  it('a submission with no response token whose event id is in the Archive is not put back and its Log is not read', () => {
    const w = journaled([submissionRow(1, { responseToken: '' })]);
    w.queue.rows = [];
    w.queue.archived.add('evt-1');
    const r = checked(w);
    expect(w.queue.rows).toEqual([]);
    expect(w.audit.lookups).toEqual([]);
    expect(w.incidents.raised).toEqual([]);
    expect(r.summary.journal).toEqual({ next: 3, open: [] });
    expect(r.gone).toEqual(new Set(['ROWS_RESTORED']));
  });

  it('a submission with no response token that is not archived is put back, its Log looked up by its event id alone', () => {
    const w = journaled([submissionRow(1, { responseToken: '' })]);
    w.queue.rows = [];
    const r = checked(w);
    expect(w.audit.lookups).toEqual([['evt-1']]);
    expect(w.queue.rows).toEqual([restoredAs(1, 2)]);
    expect(r.summary.journal).toEqual({ next: 3, open: ['event:evt-1'] });
  });

  it('a Journal line with an empty event id is looked up in the Log by its submission only', () => {
    const w = journaled([submissionRow(1)]);
    w.journal.lines[0].eventId = '';
    w.queue.rows = [];
    checked(w);
    expect(w.audit.lookups).toEqual([[key(1)]]);
    expect(w.queue.rows).toEqual([restoredAs(1, 2)]);
  });

  it('a submission whose reply the Log shows sent under another delivery of the same response is not put back', () => {
    const w = journaled([submissionRow(1)]);
    w.queue.rows = [];
    w.audit.append([
      { ...line('evt-9', 1, 'READY', 'SENDING', 'claimed for sending [ledger: mail_ref=FQ-OTHER1]'), submission: key(1) },
      { ...line('evt-9', 2, 'SENDING', 'SENT'), submission: key(1) },
    ]);
    const r = checked(w);
    expect(w.queue.rows).toEqual([]);
    expect(w.incidents.raised).toEqual([]);
    expect(r.summary.journal).toEqual({ next: 3, open: [] });
    expect(r.gone).toEqual(new Set(['ROWS_RESTORED']));
  });

  it('a submission journaled twice, once with an empty event id, whose Log shows its reply sent (the claim under the event id, the send under the submission) is not put back', () => {
    const w = journaled([submissionRow(1)]);
    w.journal.lines = [{ ...w.journal.lines[0], eventId: '' }, { ...w.journal.lines[0], eventId: 'evt-9' }];
    w.queue.rows = [];
    w.audit.append([
      line('evt-9', 1, 'READY', 'SENDING', 'claimed for sending [ledger: mail_ref=FQ-OTHER1]'),
      { ...line('evt-9', 2, 'SENDING', 'SENT'), submission: key(1) },
    ]);
    const r = checked(w);
    expect(w.queue.rows).toEqual([]);
    expect(w.incidents.raised).toEqual([]);
    expect(r.summary.journal).toEqual({ next: 4, open: [] });
  });

  it('an open submission with no Journal line to restore it from is named by the incident beside the one put back', () => {
    const w = journaled([submissionRow(1)]);
    w.deps.journalState = { next: 2, open: [key(9)] };
    w.queue.rows = [];
    const r = checked(w);
    expect(w.queue.rows).toEqual([restoredAs(1, 2)]);
    expect(w.incidents.raised).toEqual([
      {
        code: 'ROWS_RESTORED',
        detail: `1 submission(s) were removed from Queue by hand and restored from the Journal, in NEEDS_REVIEW (reason RESTORED); 1 removed submission(s) have no readable Journal line to restore them from (${key(9)}): find them in Typeform's responses`,
        rows: [2],
      },
    ]);
    expect(r.summary.journal).toEqual({ next: 3, open: [key(1)] });
    expect(r.gone).toEqual(new Set());
  });

  it.each<[string, number, string]>([
    ['five', 5, 'tf:F:k1, tf:F:k2, tf:F:k3, tf:F:k4, tf:F:k5'],
    ['six (the first five named)', 6, 'tf:F:k1, tf:F:k2, tf:F:k3, tf:F:k4, tf:F:k5, …'],
  ])('%s open submissions with no row and no Journal line raise one incident naming them, and nothing is put back', (_name, count, named) => {
    const w = journaled([]);
    const keys = Array.from({ length: count }, (_, i) => `tf:F:k${i + 1}`);
    w.deps.journalState = { next: 2, open: keys };
    const r = checked(w);
    expect(w.queue.rows).toEqual([]);
    expect(w.audit.lookups).toEqual([keys]);
    expect(w.incidents.raised).toEqual([
      { code: 'ROWS_RESTORED', detail: `${count} removed submission(s) have no readable Journal line to restore them from (${named}): find them in Typeform's responses`, rows: [] },
    ]);
    expect(r.summary.journal).toEqual({ next: 2, open: [] });
  });

  it.each<[string, string, string, string]>([
    ['a submission identity', key(1), 'Wr1tE5sy', 'tok-1'],
    ['an event id (no response token)', 'event:evt-1', '', ''],
    ['a submission identity cut short (no token)', 'tf:Wr1tE5sy', 'Wr1tE5sy', ''],
  ])('a Journal line whose payload cannot be read back, under %s, comes back with what its key and line say', (_name, journalKey, formId, token) => {
    const w = journaled([]);
    w.journal.lines = [{ receivedAt: T0 - 60_000, key: journalKey, eventId: 'evt-1', payload: 'not json' }];
    checked(w);
    expect(w.queue.rows).toEqual([
      {
        ...emptyRow(),
        rowNumber: 2,
        status: 'NEEDS_REVIEW',
        eventId: 'evt-1',
        receivedAt: T0 - 60_000,
        formId,
        responseToken: token,
        submission: '(the answers are in the payload, which could not be read back)',
        payload: 'not json',
        error: RESTORED_REASON,
        updatedAt: T0,
      },
    ]);
  });

  it('a row put back takes its address from the field Config names for its form', () => {
    const w = journaled([submissionRow(1)]);
    w.config.forms = [formConfig({ formId: 'Wr1tE5sy', recipientField: 'name' })];
    w.queue.rows = [];
    checked(w);
    expect(w.queue.rows).toEqual([restoredAs(1, 2, { recipient: 'Mina Okafor' })]);
  });

  it('a row put back for a form Config does not list takes the first email answer as its address', () => {
    const w = journaled([submissionRow(1)]);
    w.config.forms = [];
    w.queue.rows = [];
    checked(w);
    expect(w.queue.rows).toEqual([restoredAs(1, 2)]);
  });

  it('copies of one submission waiting for a person each get a reason naming the other rows, keeping the reason they had', () => {
    const w = journaled([
      submissionRow(1, { status: 'NEEDS_REVIEW', error: '' }),
      submissionRow(1, { status: 'FAILED', error: 'FAILED: Gemini said 500' }),
      submissionRow(1, { status: 'AWAITING_APPROVAL', error: '   ', result: 'Dear Mina' }),
    ]);
    const copied = (others: string, before = '') =>
      `COPIED: row(s) ${others} hold the same submission (a row copied or pasted over another); keep one and set SKIPPED on the others: whichever you keep is mailed once${before}`;
    checked(w);
    expect(w.queue.rows.map((row) => [row.rowNumber, row.status, row.error])).toEqual([
      [2, 'NEEDS_REVIEW', copied('3, 4')],
      [3, 'FAILED', copied('2, 4', ' (its reason before: FAILED: Gemini said 500)')],
      [4, 'AWAITING_APPROVAL', copied('2, 3')],
    ]);
    expect(w.audit.entries).toEqual([
      { at: T0, from: 'NEEDS_REVIEW', to: 'NEEDS_REVIEW', by: 'system', detail: copied('3, 4'), eventId: 'evt-1', submission: key(1) },
      { at: T0, from: 'FAILED', to: 'FAILED', by: 'system', detail: copied('2, 4', ' (its reason before: FAILED: Gemini said 500)'), eventId: 'evt-1', submission: key(1) },
      { at: T0, from: 'AWAITING_APPROVAL', to: 'AWAITING_APPROVAL', by: 'system', detail: copied('2, 3'), eventId: 'evt-1', submission: key(1) },
    ]);
  });
});
