// runSendStep (src/core/processing/send-step.ts) on its own run: the rows it parks, holds, claims, reads back, mails or sends back, with exact rows, Log lines, counters and incidents.
import { describe, expect, it } from 'vitest';
import { runSendStep } from '../../../src/core/processing/send-step';
import { releaseHeld } from '../../../src/core/processing/run-writes';
import type { Run } from '../../../src/core/processing/run-context';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { SuppressedEntry } from '../../../src/core/domain/mail/suppression';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../src/core/domain/time';
import { formConfig, MemorySuppression, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const FORM = 'Wr1tE5sy';
const ISO_T0 = '2026-11-20T10:00:00.000Z';
/** A READY row n at sheet row n + 1 (when listed in order), to its own mailbox r<n>@example.com. */
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, status: 'READY', result: 'Dear Mina, well done.', mailRef: `FQ-AAAAA${n}`, attempts: 1, recipient: `r${n}@example.com`, ...patch });
/** Every Log line, as `event from>to: detail`. */
const log = (w: World) => w.audit.entries.map((entry) => `${entry.eventId} ${entry.from}>${entry.to}: ${entry.detail}`);
const claimLine = (n: number) => `evt-${n} READY>SENDING: claimed for sending [ledger: mail_ref=FQ-AAAAA${n} claimed_at=${ISO_T0} marked=1]`;
const aboutLine = (n: number) => `evt-${n} SENDING>SENDING: about to send`;
const sentLine = (n: number, at = ISO_T0) => `evt-${n} SENDING>SENT: mailed to the respondent (FQ-AAAAA${n}) [ledger: mail_ref=FQ-AAAAA${n} sent_at=${at}]`;
/** A row as the step leaves it: moved at T0, its claim cleared. */
const moved = (row: QueueRow, rowNumber: number, patch: Partial<QueueRow>): QueueRow => ({ ...row, rowNumber, claimedAt: null, updatedAt: T0, ...patch });
const sent = (row: QueueRow, rowNumber: number, sentAt = T0) => moved(row, rowNumber, { status: 'SENT', sentAt, updatedAt: sentAt, error: '' });
const mailedTo = (w: World) => w.mailer.outbox.map((mail) => mail.to);
const counters = (run: Run) => {
  const { sent: mails, deferred, failed, needsReview, stoppedBecause, sendingHaltedBy } = run.summary;
  return { sent: mails, deferred, failed, needsReview, stoppedBecause, sendingHaltedBy };
};
const done = (patch: Partial<ReturnType<typeof counters>> = {}) => ({ sent: 0, deferred: 0, failed: 0, needsReview: 0, stoppedBecause: 'done', sendingHaltedBy: null, ...patch });
/** The step on a fresh run, then its held outcomes written (as the run's next commit or its end would). */
function step(w: World, prepare: (run: Run) => void = () => undefined): Run {
  const run = runOf(w);
  prepare(run);
  runSendStep(run);
  releaseHeld(run);
  return run;
}
/** Acts once, right before the n-th read of rows (the read-backs of the claims, in order). */
function atRead(w: World, n: number, act: (queue: World['queue']) => void): void {
  let reads = 0;
  w.queue.beforeReadRows = (_numbers, queue) => {
    if (++reads === n) act(queue);
  };
}
const ALL_GONE = ['TEMPLATE_INVALID', 'MAIL_QUOTA_EXHAUSTED', 'MAIL_LIMIT_REACHED', 'NEW_RECIPIENT_CEILING'];
const suppressed = (address: string): SuppressedEntry => ({ address, reason: 'asked us to stop', addedBy: 'desk@example.org', addedAt: T0 - DAY_MS });

describe('runSendStep: a batch mailed', () => {
  const rows = () => [ready(1), ready(2, { status: 'APPROVED' }), pendingRow({ eventId: 'evt-p', responseToken: 'tok-p' }), ready(4, { status: 'SKIPPED' })];

  it('claims and flushes, writes one "about to send" line and flush per mail, and holds the SENT moves for the next commit', () => {
    const w = world(rows());
    const run = runOf(w);
    runSendStep(run);
    expect(mailedTo(w)).toEqual(['r1@example.com', 'r2@example.com']);
    expect(w.queue.rows.map((row) => `${row.status}@${row.claimedAt}`)).toEqual([`SENDING@${T0}`, `SENDING@${T0}`, 'PENDING@null', 'SKIPPED@null']);
    expect(log(w)).toEqual([claimLine(1), claimLine(2).replace('READY>', 'APPROVED>'), aboutLine(1), aboutLine(2)]);
    expect(w.audit.entries[2]).toEqual({ at: T0, eventId: 'evt-1', submission: `tf:${FORM}:tok-1`, from: 'SENDING', to: 'SENDING', by: 'system', detail: 'about to send' });
    expect({ writes: w.queue.writes.length, flushes: w.queue.flushes }).toEqual({ writes: 1, flushes: 3 });
    expect(run.held?.batch.rows.map((row) => `${row.eventId}:${row.status}`)).toEqual(['evt-1:SENT', 'evt-2:SENT']);
    expect(counters(run)).toEqual(done({ sent: 2 }));
    // The send ledger of the rows still to be mailed, READY, APPROVED and PENDING: one lookup, the SKIPPED row not in it.
    expect(w.audit.lookups).toEqual([['evt-1', `tf:${FORM}:tok-1`, 'evt-2', `tf:${FORM}:tok-2`, 'evt-p', `tf:${FORM}:tok-p`]]);
    expect(w.incidents.raised).toEqual([]);
    expect(run.gone).toEqual(new Set(ALL_GONE));
    expect(run.setAside).toEqual(new Set());
  });

  it('once written: each row SENT with sent_at, its claim and error cleared, and a SENT line with its ledger facts', () => {
    const original = rows();
    const w = world(rows().map((row) => ({ ...row, error: row.status === 'READY' ? 'MAIL_QUOTA: earlier' : '' })));
    step(w);
    expect(w.queue.rows).toEqual([sent(original[0], 2), sent(original[1], 3), { ...original[2], rowNumber: 4 }, { ...original[3], rowNumber: 5 }]);
    expect(log(w)).toEqual([claimLine(1), claimLine(2).replace('READY>', 'APPROVED>'), aboutLine(1), aboutLine(2), sentLine(1), sentLine(2)]);
    expect({ writes: w.queue.writes.length, flushes: w.queue.flushes }).toEqual({ writes: 2, flushes: 4 });
  });

  it('sent_at is the time of each mail', () => {
    const w = world([ready(1), ready(2)]);
    w.mailer.failWith = () => {
      w.clock.advance(1000);
      return undefined;
    };
    step(w);
    expect(w.queue.rows).toEqual([sent(ready(1), 2, T0 + 1000), sent(ready(2), 3, T0 + 2000)]);
  });

  it('an error typed into the row while it was claimed is cleared by its SENT', () => {
    const w = world([ready(1)]);
    atRead(w, 1, (queue) => queue.edit(2, { error: 'typed by a tutor' }));
    step(w);
    expect(w.queue.rows).toEqual([sent(ready(1), 2)]);
  });

  it('with nothing to mail, the Log is not looked up, nothing is written, and the limits are found gone', () => {
    const w = world([pendingRow({ eventId: 'evt-p', responseToken: 'tok-p' }), ready(2, { status: 'AWAITING_APPROVAL' })]);
    const run = step(w);
    expect(w.audit.lookups).toEqual([]);
    expect(w.queue.writes).toEqual([]);
    expect(w.audit.entries).toEqual([]);
    expect(run.gone).toEqual(new Set(['MAIL_LIMIT_REACHED', 'NEW_RECIPIENT_CEILING']));
    expect(counters(run)).toEqual(done());
  });

  it('a row the run set aside earlier is neither claimed nor held for approval', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ approvalRequired: false }), formConfig({ formId: 'Appr', approvalRequired: true })]);
    w.queue.edit(2, { formId: 'Appr' });
    const before = w.queue.readAll();
    step(w, (run) => {
      run.setAside.add(2);
      run.setAside.add(3);
    });
    expect(w.queue.rows).toEqual(before);
    expect(w.mailer.outbox).toEqual([]);
    expect(w.audit.lookups).toEqual([]);
  });
});

describe('runSendStep: rows it must not mail, moved before any claim', () => {
  it('a sendable row whose sent_at is filled, or whose reply is empty, goes to NEEDS_REVIEW saying why', () => {
    const rows = [
      ready(1, { sentAt: T0 - HOUR_MS }),
      ready(2, { status: 'APPROVED', sentAt: T0 - DAY_MS }),
      ready(3, { result: '' }),
      ready(4, { status: 'APPROVED', result: ' \n\t' }),
      ready(5, { result: ' x ' }),
      ready(6, { status: 'SENT', sentAt: T0 - HOUR_MS, result: '' }),
    ];
    const w = world(rows);
    const run = step(w);
    const review = (row: QueueRow, rowNumber: number, error: string) => moved(row, rowNumber, { status: 'NEEDS_REVIEW', error });
    const alreadySent = (iso: string) => `ALREADY_SENT: sent_at is filled (${iso}), so it is not mailed again; set PENDING to write and send a new reply`;
    const noReply = (status: string) => `NO_REPLY: the row is ${status} but its result is empty, so there is no reply to mail; set PENDING to have one written, or SKIPPED`;
    expect(w.queue.rows).toEqual([
      review(rows[0], 2, alreadySent('2026-11-20T09:00:00.000Z')),
      review(rows[1], 3, alreadySent('2026-11-19T10:00:00.000Z')),
      review(rows[2], 4, noReply('READY')),
      review(rows[3], 5, noReply('APPROVED')),
      sent(rows[4], 6),
      { ...rows[5], rowNumber: 7 },
    ]);
    expect(log(w).slice(0, 4)).toEqual([
      `evt-1 READY>NEEDS_REVIEW: ${alreadySent('2026-11-20T09:00:00.000Z')}`,
      `evt-2 APPROVED>NEEDS_REVIEW: ${alreadySent('2026-11-19T10:00:00.000Z')}`,
      `evt-3 READY>NEEDS_REVIEW: ${noReply('READY')}`,
      `evt-4 APPROVED>NEEDS_REVIEW: ${noReply('APPROVED')}`,
    ]);
    // One write for all four, then the claim and the SENT.
    expect(w.queue.writes.map((written) => written.map((row) => `${row.eventId}:${row.status}`))).toEqual([
      ['evt-1:NEEDS_REVIEW', 'evt-2:NEEDS_REVIEW', 'evt-3:NEEDS_REVIEW', 'evt-4:NEEDS_REVIEW'],
      ['evt-5:SENDING'],
      ['evt-5:SENT'],
    ]);
    expect(mailedTo(w)).toEqual(['r5@example.com']);
    expect(counters(run)).toEqual(done({ sent: 1, needsReview: 4 }));
  });

  it('a READY row of a form that now asks for approval goes to AWAITING_APPROVAL keeping its reply; an APPROVED one is mailed', () => {
    const rows = [ready(1), ready(2, { status: 'APPROVED' }), ready(3)];
    const w = world(rows, {}, [formConfig({ formId: 'Appr', approvalRequired: true }), formConfig()]);
    w.queue.edit(2, { formId: 'Appr' });
    w.queue.edit(3, { formId: 'Appr' });
    const run = step(w);
    expect(w.queue.rows).toEqual([
      moved({ ...rows[0], formId: 'Appr' }, 2, { status: 'AWAITING_APPROVAL' }),
      sent({ ...rows[1], formId: 'Appr' }, 3),
      sent(rows[2], 4),
    ]);
    expect(log(w)[0]).toBe('evt-1 READY>AWAITING_APPROVAL: approval is on for this form: the reply written before waits for approval');
    expect(w.queue.writes[0].map((row) => `${row.eventId}:${row.status}`)).toEqual(['evt-1:AWAITING_APPROVAL']);
    expect(mailedTo(w)).toEqual(['r2@example.com', 'r3@example.com']);
    expect(counters(run)).toEqual(done({ sent: 2 }));
  });
});

describe("runSendStep: the run's budget", () => {
  it('ended before the step: nothing is claimed or mailed, and the step says the run stopped for it', () => {
    const w = world([ready(1)]);
    const run = runOf(w, T0);
    runSendStep(run);
    expect(w.queue.writes).toEqual([]);
    expect(w.mailer.outbox).toEqual([]);
    expect(counters(run)).toEqual(done({ stoppedBecause: 'budget' }));
    expect(run.held).toBeNull();
  });

  it("ending between two mails of a batch: the rest go back to READY or APPROVED unmailed, saying so; no incident", () => {
    const w = world([ready(1), ready(2, { status: 'APPROVED' }), ready(3)]);
    w.mailer.failWith = () => {
      w.clock.advance(61_000);
      return undefined;
    };
    const run = runOf(w, T0 + 60_000);
    runSendStep(run);
    releaseHeld(run);
    const notMailed = "not mailed: the run's budget ended before this row's turn";
    expect(w.queue.rows).toEqual([sent(ready(1), 2, T0 + 61_000), moved(ready(2, { status: 'APPROVED' }), 3, { updatedAt: T0 + 61_000 }), moved(ready(3), 4, { updatedAt: T0 + 61_000 })]);
    expect(log(w).slice(4)).toEqual([
      `evt-1 SENDING>SENT: mailed to the respondent (FQ-AAAAA1) [ledger: mail_ref=FQ-AAAAA1 sent_at=2026-11-20T10:01:01.000Z]`,
      `evt-2 SENDING>APPROVED: ${notMailed}`,
      `evt-3 SENDING>READY: ${notMailed}`,
    ]);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 2, stoppedBecause: 'budget' }));
    expect(w.incidents.raised).toEqual([]);
    expect(run.gone).toEqual(new Set(ALL_GONE));
  });
});

describe('runSendStep: the mail quota', () => {
  it('too little left when planning: the row it stops at and the rest wait unclaimed, all named', () => {
    const w = world([ready(1), ready(2), ready(3)]);
    w.mailer.quota = 1;
    const run = step(w);
    expect(w.queue.rows).toEqual([sent(ready(1), 2), { ...ready(2), rowNumber: 3 }, { ...ready(3), rowNumber: 4 }]);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 2, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' }));
    expect(w.incidents.raised).toEqual([
      { code: 'MAIL_QUOTA_EXHAUSTED', detail: 'the daily mail quota is used up; 2 row(s) wait as they are and are sent once it resets', rows: [3, 4] },
    ]);
    // A quota that halted sending says nothing about the limits.
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID', 'MAIL_QUOTA_EXHAUSTED']));
  });

  it('none left at all: no claim, every row named', () => {
    const w = world([ready(1), ready(2)]);
    w.mailer.quota = 0;
    const run = step(w);
    expect(w.queue.writes).toEqual([]);
    expect(counters(run)).toEqual(done({ deferred: 2, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' }));
    expect(w.incidents.raised).toEqual([
      { code: 'MAIL_QUOTA_EXHAUSTED', detail: 'the daily mail quota is used up; 2 row(s) wait as they are and are sent once it resets', rows: [2, 3] },
    ]);
  });

  it('a planned batch stopped by the quota mid-batch and rows left after it: the first batch is mailed, the rest wait', () => {
    const rows = Array.from({ length: 7 }, (_, i) => ready(i + 1));
    const w = world(rows);
    w.mailer.quota = 6;
    const run = step(w);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT', 'SENT', 'SENT', 'SENT', 'READY']);
    expect(counters(run)).toEqual(done({ sent: 6, deferred: 1, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' }));
    expect(w.incidents.raised).toEqual([
      { code: 'MAIL_QUOTA_EXHAUSTED', detail: 'the daily mail quota is used up; 1 row(s) wait as they are and are sent once it resets', rows: [8] },
    ]);
  });
});

describe('runSendStep: a mail MailApp refuses', () => {
  it.each<[string, string, QueueRow['status'], string, Partial<ReturnType<typeof counters>>]>([
    ['for good: FAILED', 'Invalid email: r1@example.com', 'FAILED', 'MAIL_PERMANENT: Invalid email: r1@example.com', { failed: 1 }],
    [
      'in a way that may have sent it: NEEDS_REVIEW, the secret redacted',
      'Server error s3cret',
      'NEEDS_REVIEW',
      'MAIL_UNKNOWN: Server error [redacted] — the mail may or may not have been sent; it is not resent automatically',
      { needsReview: 1 },
    ],
  ])('%s, and the next row is mailed', (_what, message, status, error, counted) => {
    const w = world([ready(1), ready(2)]);
    w.mailer.failWith = (mail) => (mail.to === 'r1@example.com' ? message : undefined);
    const run = step(w, (r) => (r.secrets = ['s3cret']));
    expect(w.queue.rows).toEqual([moved(ready(1), 2, { status, error }), sent(ready(2), 3)]);
    expect(log(w)).toEqual([claimLine(1), claimLine(2), aboutLine(1), aboutLine(2), `evt-1 SENDING>${status}: ${error}`, sentLine(2)]);
    expect(counters(run)).toEqual(done({ sent: 1, ...counted }));
    expect(w.incidents.raised).toEqual([]);
  });

  it('for the day (the quota): that row and the rest of its batch go back as they were claimed, and sending halts', () => {
    const rows = [ready(1), ready(2, { status: 'APPROVED' }), ready(3, { status: 'APPROVED' }), ready(4)];
    const w = world(rows);
    w.mailer.failWith = (mail) => (mail.to === 'r2@example.com' ? 'Service invoked too many times for one day: email. s3cret' : undefined);
    const run = step(w, (r) => (r.secrets = ['s3cret']));
    expect(w.queue.rows).toEqual([sent(rows[0], 2), moved(rows[1], 3, {}), moved(rows[2], 4, {}), moved(rows[3], 5, {})]);
    expect(mailedTo(w)).toEqual(['r1@example.com']);
    expect(log(w).slice(6)).toEqual([
      sentLine(1),
      'evt-2 SENDING>APPROVED: MAIL_QUOTA: Service invoked too many times for one day: email. [redacted]',
      "evt-3 SENDING>APPROVED: not mailed: the daily mail quota is used up before this row's turn",
      "evt-4 SENDING>READY: not mailed: the daily mail quota is used up before this row's turn",
    ]);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 3, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' }));
    expect(w.incidents.raised).toEqual([
      { code: 'MAIL_QUOTA_EXHAUSTED', detail: 'the daily mail quota is used up; 3 row(s) wait as they are and are sent once it resets', rows: [3, 4, 5] },
    ]);
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID', 'MAIL_QUOTA_EXHAUSTED']));
  });

  it('for the day at the first mail of a second batch: the rows after it are named too', () => {
    const w = world(Array.from({ length: 7 }, (_, i) => ready(i + 1)));
    w.mailer.failWith = (mail) => (mail.to === 'r6@example.com' ? 'Service invoked too many times for one day: email.' : undefined);
    const run = step(w);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT', 'SENT', 'SENT', 'READY', 'READY']);
    expect(counters(run)).toEqual(done({ sent: 5, deferred: 2, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' }));
    expect(w.incidents.raised).toEqual([
      { code: 'MAIL_QUOTA_EXHAUSTED', detail: 'the daily mail quota is used up; 2 row(s) wait as they are and are sent once it resets', rows: [7, 8] },
    ]);
  });
});

describe('runSendStep: the limits on mails', () => {
  it('MAX_MAILS_PER_RUN reached: the rows left wait unclaimed, named in MAIL_LIMIT_REACHED', () => {
    const w = world([ready(1), ready(2), ready(3)], { MAX_MAILS_PER_RUN: '1', MAX_MAILS_PER_RECIPIENT_PER_DAY: '4' });
    const run = step(w);
    expect(w.queue.rows).toEqual([sent(ready(1), 2), { ...ready(2), rowNumber: 3 }, { ...ready(3), rowNumber: 4 }]);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 2 }));
    expect(w.incidents.raised).toEqual([
      {
        code: 'MAIL_LIMIT_REACHED',
        detail: '2 row(s) wait: a recipient already got MAX_MAILS_PER_RECIPIENT_PER_DAY (4) mails in 24 hours, or this run reached MAX_MAILS_PER_RUN (1)',
        rows: [3, 4],
      },
    ]);
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID', 'MAIL_QUOTA_EXHAUSTED', 'NEW_RECIPIENT_CEILING']));
  });

  it('MAX_NEW_RECIPIENTS_PER_HOUR reached: rows to new addresses wait, named in NEW_RECIPIENT_CEILING', () => {
    const w = world([ready(1), ready(2), ready(3)], { MAX_NEW_RECIPIENTS_PER_HOUR: '1', MAX_NEW_RECIPIENTS_PER_DAY: '9' });
    const run = step(w);
    expect(w.queue.rows).toEqual([sent(ready(1), 2), { ...ready(2), rowNumber: 3 }, { ...ready(3), rowNumber: 4 }]);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 2 }));
    expect(w.incidents.raised).toEqual([
      {
        code: 'NEW_RECIPIENT_CEILING',
        detail:
          '2 row(s) to addresses never mailed before wait: MAX_NEW_RECIPIENTS_PER_HOUR (1) or MAX_NEW_RECIPIENTS_PER_DAY (9) new addresses were mailed in a rolling hour or day',
        rows: [3, 4],
      },
    ]);
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID', 'MAIL_QUOTA_EXHAUSTED', 'MAIL_LIMIT_REACHED']));
    expect(run.setAside).toEqual(new Set([3, 4]));
  });

  it('with both limits met and the quota then used up, neither limit is found gone', () => {
    const w = world([ready(1), ready(2, { recipient: 'r1@example.com' }), ready(3), ready(4)], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1', MAX_NEW_RECIPIENTS_PER_HOUR: '2' });
    w.mailer.quota = 1;
    const run = step(w);
    expect(w.incidents.raised.map((incident) => [incident.code, incident.rows])).toEqual([
      ['MAIL_QUOTA_EXHAUSTED', [4, 5]],
      ['MAIL_LIMIT_REACHED', [3]],
    ]);
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID', 'MAIL_QUOTA_EXHAUSTED']));
  });
});

describe('runSendStep: Config problems and send windows', () => {
  const bodyProblem =
    'Config for form "T": the body template uses {{nick}}, which is neither a field ref or id of this form, a hidden.<name> or variables.<key> of this submission, {{score}}, nor one of {{answers}}, {{result}}, {{mail_ref}}. Fix the template in the Config sheet.';
  const bccProblem = 'Config for form "C": bcc "nope" is not a valid email address';
  const hoursProblem = 'Config send_hours of form W is "9 to 5": write the hours replies may go out as HH:MM-HH:MM (e.g. 08:00-20:00), or leave it empty for any time';
  const forms = [formConfig(), formConfig({ formId: 'T', body: 'Hi {{nick}}' }), formConfig({ formId: 'C', bcc: 'nope' }), formConfig({ formId: 'W', sendHours: '9 to 5' })];

  it.each<[string, string, string, string]>([
    ['a body template naming an unknown field', 'TEMPLATE_INVALID', 'T', `TEMPLATE_INVALID: ${bodyProblem}`],
    ['a bcc that is no address', 'CONFIG_SHEET_INVALID', 'C', `CONFIG_INVALID: ${bccProblem}`],
    ['a send_hours that cannot be read', 'TEMPLATE_INVALID', 'W', `CONFIG_INVALID: ${hoursProblem}`],
  ])('%s: the form\'s rows keep their status with the note, named in %s once; other forms still send', (_what, code, formId, note) => {
    const w = world([ready(1, { formId }), ready(2, { formId }), ready(3)], {}, forms);
    const run = step(w);
    expect(w.queue.rows).toEqual([{ ...ready(1, { formId }), rowNumber: 2, error: note }, { ...ready(2, { formId }), rowNumber: 3, error: note }, sent(ready(3), 4)]);
    expect(w.incidents.raised).toEqual([{ code, detail: note.slice(note.indexOf(': ') + 2), rows: [2, 3] }]);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 2 }));
    expect(run.setAside).toEqual(new Set([2, 3]));
  });

  it('all three at once: TEMPLATE_INVALID lists its two problems one per line; CONFIG_SHEET_INVALID names only the rows its detail explains', () => {
    const w = world([ready(1, { formId: 'T' }), ready(2, { formId: 'C' }), ready(3, { formId: 'W' }), ready(4)], {}, forms);
    step(w);
    expect(w.queue.rows.map((row) => row.error.slice(0, row.error.indexOf(':')))).toEqual(['TEMPLATE_INVALID', 'CONFIG_INVALID', 'CONFIG_INVALID', '']);
    expect(w.incidents.raised).toEqual([
      { code: 'TEMPLATE_INVALID', detail: `${hoursProblem}\n${bodyProblem}`, rows: [2, 4] },
      // Row 4 waits for its send_hours: named by TEMPLATE_INVALID, whose detail explains it, and not here.
      { code: 'CONFIG_SHEET_INVALID', detail: bccProblem, rows: [3] },
    ]);
  });

  it('two forms whose bcc is no address: CONFIG_SHEET_INVALID names both problems, one per line, and both forms\' rows', () => {
    const w = world([ready(1, { formId: 'C' }), ready(2, { formId: 'D' }), ready(3)], {}, [formConfig(), formConfig({ formId: 'C', bcc: 'nope' }), formConfig({ formId: 'D', bcc: 'nada' })]);
    step(w);
    const otherProblem = 'Config for form "D": bcc "nada" is not a valid email address';
    expect(w.incidents.raised).toEqual([{ code: 'CONFIG_SHEET_INVALID', detail: `${bccProblem}\n${otherProblem}`, rows: [2, 3] }]);
  });

  it('a row outside its form\'s send window keeps its status with a "not before" note and is not claimed; no incident', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ sendHours: '12:00-20:00' })]);
    const run = step(w);
    const note = "SEND_WINDOW: outside the form's send_hours 12:00-20:00 (Etc/UTC); not mailed before 2026-11-20T12:00:00.000Z";
    expect(w.queue.rows).toEqual([{ ...ready(1), rowNumber: 2, error: note }, { ...ready(2), rowNumber: 3, error: note }]);
    expect(w.audit.lookups).toEqual([]);
    expect(w.incidents.raised).toEqual([]);
    expect(counters(run)).toEqual(done({ deferred: 2 }));
    expect(run.setAside).toEqual(new Set([2, 3]));
  });
});

describe('runSendStep: the read-back right before each mail', () => {
  it.each<[string, (queue: World['queue']) => void, number[], string[]]>([
    ['staff skipped the row', (queue) => queue.edit(2, { status: 'SKIPPED', claimedAt: null }), [2], ['SKIPPED', 'SENT']],
    ['another writer claimed it', (queue) => queue.edit(2, { claimedAt: T0 + 5000 }), [2], ['SENDING', 'SENT']],
    ['sent_at was filled by hand', (queue) => queue.edit(2, { sentAt: T0 - HOUR_MS }), [2], ['SENDING', 'SENT']],
    ['the row was deleted', (queue) => (queue.rows = queue.rows.filter((row) => row.eventId !== 'evt-1').map((row) => ({ ...row, rowNumber: row.rowNumber - 1 }))), [2], ['SENT']],
    ['the row was copied while staff sorted (two rows hold it)', (queue) => {
      queue.reorder((rows) => rows.reverse());
      queue.appendRows([{ ...queue.rows.find((row) => row.eventId === 'evt-1')! }]);
    }, [2], ['SENT', 'SENDING', 'SENDING']],
  ])('%s: not mailed, set aside, and the next row is mailed', (_what, act, aside, statuses) => {
    const w = world([ready(1), ready(2)]);
    atRead(w, 1, act);
    const run = step(w);
    expect(mailedTo(w)).toEqual(['r2@example.com']);
    expect(run.setAside).toEqual(new Set(aside));
    expect(w.queue.rows.map((row) => row.status)).toEqual(statuses);
    expect(log(w).filter((line) => line.startsWith('evt-1 '))).toEqual([claimLine(1)]);
    expect(counters(run)).toEqual(done({ sent: 1 }));
  });

  it('a row taken from us after a sort moved it is set aside at its new place', () => {
    const w = world([ready(1), ready(2), ready(3)]);
    atRead(w, 1, (queue) => {
      queue.reorder(([first, second, third]) => [second, third, first]);
      queue.edit(4, { claimedAt: T0 + 5000 });
    });
    const run = step(w);
    expect(mailedTo(w)).toEqual(['r2@example.com', 'r3@example.com']);
    expect(run.setAside).toEqual(new Set([4]));
  });

  it('the run keeps the row as read back: a row staff skipped shows SKIPPED in its copies', () => {
    const w = world([ready(1)]);
    atRead(w, 1, (queue) => queue.edit(2, { status: 'SKIPPED', claimedAt: null }));
    const run = step(w);
    expect(run.rows).toEqual([{ ...ready(1), rowNumber: 2, status: 'SKIPPED', claimedAt: null, mailRef: 'FQ-AAAAA1', error: '', updatedAt: T0 }]);
  });

  it('a sort before the read-back: each claimed row is found again by its event_id and mailed once, SENT where it stands', () => {
    const w = world([ready(1), ready(2), ready(3)]);
    atRead(w, 1, (queue) => queue.reorder((rows) => rows.reverse()));
    const run = step(w);
    expect(mailedTo(w)).toEqual(['r1@example.com', 'r2@example.com', 'r3@example.com']);
    expect(w.queue.rows).toEqual([sent(ready(3), 2), sent(ready(2), 3), sent(ready(1), 4)]);
    expect(run.setAside).toEqual(new Set());
  });

  it('an address put on the Suppressed sheet edited in since the claim: NEEDS_REVIEW, not mailed; the next row is', () => {
    const w = world([ready(1), ready(2)]);
    w.deps.suppression = new MemorySuppression([suppressed('stop@example.com')]);
    atRead(w, 1, (queue) => queue.edit(2, { recipient: 'stop@example.com' }));
    const run = step(w);
    const error =
      'SUPPRESSED: stop@example.com is on the Suppressed sheet (added by desk@example.org: asked us to stop), so no reply is mailed to it. ' +
      'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply';
    expect(w.queue.rows).toEqual([moved(ready(1, { recipient: 'stop@example.com' }), 2, { status: 'NEEDS_REVIEW', error }), sent(ready(2), 3)]);
    expect(log(w)).toEqual([claimLine(1), claimLine(2), aboutLine(2), `evt-1 SENDING>NEEDS_REVIEW: ${error}`, sentLine(2)]);
    expect(counters(run)).toEqual(done({ sent: 1, needsReview: 1 }));
  });

  it.each<[QueueRow['status'], string[]]>([
    ['READY', []],
    ['APPROVED', ['r1@example.com']],
  ])('a reply edited since the claim to break the reply policy, claimed from %s: mailed to %j', (status, mails) => {
    const w = world([ready(1, { status })]);
    atRead(w, 1, (queue) => queue.edit(2, { result: 'See https://evil.example/x' }));
    const run = step(w);
    expect(mailedTo(w)).toEqual(mails);
    if (status === 'READY') {
      const held = 'REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is';
      expect(w.queue.rows).toEqual([moved(ready(1, { result: 'See https://evil.example/x' }), 2, { error: held })]);
      expect(log(w)).toEqual([claimLine(1), `evt-1 SENDING>READY: not mailed: ${held}`]);
      expect(run.setAside).toEqual(new Set([2]));
      expect(counters(run)).toEqual(done({ deferred: 1 }));
    } else {
      expect(w.queue.rows).toEqual([sent(ready(1, { status, result: 'See https://evil.example/x' }), 2)]);
      expect(run.setAside).toEqual(new Set());
    }
  });

  it('a reply emptied since the claim cannot be built: back unmailed, the Config to be fixed', () => {
    const w = world([ready(1, { status: 'APPROVED' }), ready(2)]);
    atRead(w, 1, (queue) => queue.edit(2, { result: '' }));
    const run = step(w);
    expect(w.queue.rows[0]).toMatchObject({ status: 'APPROVED', claimedAt: null });
    expect(log(w).filter((line) => line.startsWith('evt-1 '))).toEqual([claimLine(1).replace('READY>', 'APPROVED>'), 'evt-1 SENDING>APPROVED: Config template must be fixed before sending']);
    expect(mailedTo(w)).toEqual(['r2@example.com']);
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 1 }));
  });

  it('an address broken since the claim: FAILED unmailed', () => {
    const w = world([ready(1)]);
    atRead(w, 1, (queue) => queue.edit(2, { recipient: 'nobody' }));
    const run = step(w);
    expect(w.queue.rows).toEqual([moved(ready(1, { recipient: 'nobody' }), 2, { status: 'FAILED', error: 'MAIL_PERMANENT: not a valid email address: nobody' })]);
    expect(w.mailer.outbox).toEqual([]);
    expect(counters(run)).toEqual(done({ failed: 1 }));
  });

  it("the form's send window closed since the claim: back unmailed with the window's note", () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ sendHours: '09:00-10:01' })]);
    w.mailer.failWith = () => {
      w.clock.advance(2 * MINUTE_MS);
      return undefined;
    };
    const run = step(w);
    const note = "SEND_WINDOW: outside the form's send_hours 09:00-10:01 (Etc/UTC); not mailed before 2026-11-21T09:00:00.000Z";
    expect(w.queue.rows).toEqual([sent(ready(1), 2, T0 + 2 * MINUTE_MS), moved(ready(2), 3, { error: note, updatedAt: T0 + 2 * MINUTE_MS })]);
    expect(log(w).slice(-1)).toEqual([`evt-2 SENDING>READY: not mailed: ${note}`]);
    expect(run.setAside).toEqual(new Set([3]));
    expect(counters(run)).toEqual(done({ sent: 1, deferred: 1 }));
  });

  it("the row moved since the claim to a form whose send_hours cannot be read: back unmailed, named in TEMPLATE_INVALID", () => {
    const w = world([ready(1)], {}, [formConfig(), formConfig({ formId: 'W', sendHours: '9 to 5' })]);
    atRead(w, 1, (queue) => queue.edit(2, { formId: 'W' }));
    const run = step(w);
    const problem = 'Config send_hours of form W is "9 to 5": write the hours replies may go out as HH:MM-HH:MM (e.g. 08:00-20:00), or leave it empty for any time';
    expect(w.queue.rows).toEqual([moved(ready(1, { formId: 'W' }), 2, { error: `CONFIG_INVALID: ${problem}` })]);
    expect(log(w)).toEqual([claimLine(1), `evt-1 SENDING>READY: not mailed: CONFIG_INVALID: ${problem}`]);
    expect(w.incidents.raised).toEqual([{ code: 'TEMPLATE_INVALID', detail: problem, rows: [2] }]);
    expect(run.setAside).toEqual(new Set([2]));
  });

  it('a reply that breaks the reply policy since the claim, on a row moved to a form whose send_hours cannot be read: held for the policy, its window not asked, no incident', () => {
    const w = world([ready(1)], {}, [formConfig(), formConfig({ formId: 'W', sendHours: '9 to 5' })]);
    atRead(w, 1, (queue) => queue.edit(2, { formId: 'W', result: 'See https://evil.example/x' }));
    const run = step(w);
    const held = 'REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is';
    expect(w.queue.rows).toEqual([moved(ready(1, { formId: 'W', result: 'See https://evil.example/x' }), 2, { error: held })]);
    expect(log(w)).toEqual([claimLine(1), `evt-1 SENDING>READY: not mailed: ${held}`]);
    expect(w.incidents.raised).toEqual([]);
    expect(run.setAside).toEqual(new Set([2]));
  });

  it('a row that cannot be mailed at all since the claim is not asked about its window: FAILED, no incident', () => {
    const w = world([ready(1)], {}, [formConfig(), formConfig({ formId: 'W', sendHours: '9 to 5' })]);
    atRead(w, 1, (queue) => queue.edit(2, { formId: 'W', recipient: 'nobody' }));
    const run = step(w);
    expect(w.queue.rows).toEqual([moved(ready(1, { formId: 'W', recipient: 'nobody' }), 2, { status: 'FAILED', error: 'MAIL_PERMANENT: not a valid email address: nobody' })]);
    expect(w.incidents.raised).toEqual([]);
    expect(run.setAside).toEqual(new Set());
  });
});

describe('runSendStep: a SENT write refused because a person changed the row while its mail went', () => {
  it('the row is found again and marked SENT over what the person set, and the Log says so', () => {
    const w = world([ready(1)]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED', error: 'typed by a tutor' });
      return undefined;
    };
    step(w);
    expect(w.queue.rows).toEqual([sent(ready(1), 2)]);
    expect(log(w).slice(2)).toEqual([
      `evt-1 FAILED>SENT: mailed to the respondent (FQ-AAAAA1); marked SENT over FAILED, which a person set while it was SENDING [ledger: mail_ref=FQ-AAAAA1 sent_at=${ISO_T0}]`,
    ]);
  });
});
