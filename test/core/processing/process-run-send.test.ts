// runProcessing's send side: claims read back, the sent_at guard, quota, per-run and per-recipient limits, mail errors.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, pendingRow, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
const HOUR = 3_600_000;
const ready = (patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1, ...patch });
const readyRows = (n: number, patch: Partial<QueueRow> = {}) =>
  Array.from({ length: n }, (_v, i) => ready({ eventId: `evt-${i}`, responseToken: `tok-${i}`, mailRef: `FQ-AAAAA${i}`, ...patch }));

describe('runProcessing: sending', () => {
  it('writes SENDING with its claim and flushes before the mail goes, then SENT with sent_at', () => {
    const w = world([ready()]);
    let atSend = '';
    w.mailer.failWith = () => {
      atSend = `${w.queue.row(2).status}@${w.queue.row(2).claimedAt} flushes=${w.queue.flushes}`;
      return undefined;
    };
    runProcessing(w.deps, start);
    // The claim's flush, then the "about to send" line's.
    expect(atSend).toBe(`SENDING@${T0} flushes=2`);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: T0, claimedAt: null });
    expect(w.queue.flushes).toBe(3);
    expect(w.mailer.outbox[0]).toMatchObject({ to: 'mina.okafor@example.com', subject: 'Our reply to your submission (FQ-AAAAAA)' });
  });

  it('a row whose sent_at is filled is never mailed again, whatever its status says: it goes to NEEDS_REVIEW', () => {
    const w = world([ready({ sentAt: T0 - HOUR }), ready({ eventId: 'e2', responseToken: 't2', status: 'APPROVED', sentAt: T0 - HOUR })]);
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['NEEDS_REVIEW', 'NEEDS_REVIEW']);
    expect(w.queue.row(2).error).toMatch(/^ALREADY_SENT: sent_at is filled/);
    // ROWS_NEED_A_PERSON is raised by the tick from the Queue as measured (test/core/runs/queue-tick.test.ts).
    expect(w.incidents.codes()).toEqual([]);
    expect(summary.needsReview).toBe(2);
  });

  it('an APPROVED row is mailed with the result exactly as staff left it, even if edited after the run read it', () => {
    const w = world([ready({ status: 'APPROVED', result: 'draft' })]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { result: 'Edited by a tutor <3' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox[0].body.startsWith('Edited by a tutor <3')).toBe(true);
    expect(w.mailer.outbox[0].htmlBody).toContain('Edited by a tutor &lt;3');
  });

  it('AWAITING_APPROVAL rows are never sent', () => {
    const w = world([ready({ status: 'AWAITING_APPROVAL' })]);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a row taken by another writer between claim and read-back is not mailed', () => {
    const w = world([ready()]);
    // The only read is the claim's read-back, right before the mail (the claim's compare-and-set needs none before it).
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { status: 'SKIPPED' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('SKIPPED');
  });

  it('a READY row whose sent_at staff fill after the run read the Queue is not mailed: the claim\'s compare-and-set sees it and writes nothing', () => {
    const w = world([ready()]);
    // Right before the claim is written: staff have just recorded a reply they sent by hand.
    w.queue.beforeWriteRows = (_rows, queue) => {
      queue.edit(2, { sentAt: T0 - HOUR });
      queue.beforeWriteRows = null;
    };
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY', sentAt: T0 - HOUR });
    expect(w.queue.writes.flat().some((row) => row.status === 'SENDING')).toBe(false);
  });

  it('a sent_at filled between the SENDING claim and its read-back stops the mail too', () => {
    const w = world([ready()]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { sentAt: T0 - HOUR });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a row staff skip while earlier rows of its batch are mailed is not mailed, and their decision stands', () => {
    const w = world(readyRows(2));
    w.mailer.failWith = () => void w.queue.edit(3, { status: 'SKIPPED' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SKIPPED']);
    expect(w.audit.entries.filter((entry) => entry.to === 'SENT')).toHaveLength(1);
  });

  it('a READY row whose result staff edit while earlier rows are mailed is mailed with their text', () => {
    const w = world(readyRows(2));
    w.mailer.failWith = () => void w.queue.edit(3, { result: 'Rewritten by a tutor' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox[1].body.startsWith('Rewritten by a tutor')).toBe(true);
    expect(w.queue.row(3)).toMatchObject({ status: 'SENT', result: 'Rewritten by a tutor' });
  });

  it('mail quota 0: rows stay READY untouched, one MAIL_QUOTA_EXHAUSTED incident; once it returns they are sent once and it clears', () => {
    const w = world(readyRows(3));
    w.mailer.quota = 0;
    const first = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'READY', 'READY']);
    expect(w.queue.writes).toHaveLength(0);
    expect(w.incidents.raised).toEqual([expect.objectContaining({ code: 'MAIL_QUOTA_EXHAUSTED', rows: [2, 3, 4] })]);
    expect(first).toMatchObject({ deferred: 3, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED', nextDueAt: T0 + 5 * 60_000 });
    w.mailer.quota = 100;
    runProcessing(w.deps, start);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(3);
    expect(w.incidents.cleared).toContain('MAIL_QUOTA_EXHAUSTED');
  });

  it('a bcc uses quota too: one recipient left is not enough for a mail with a bcc', () => {
    const w = world([ready()], {}, [formConfig({ bcc: 'archive@school.example' })]);
    w.mailer.quota = 1;
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.incidents.codes()).toEqual(['MAIL_QUOTA_EXHAUSTED']);
  });

  it.each([
    ['READY', 'READY'],
    ['APPROVED', 'APPROVED'],
  ])('a quota error at send puts a %s row back to %s, raises the incident and stops sending', (from, back) => {
    const w = world(readyRows(2, { status: from }));
    w.mailer.failWith = () => 'Service invoked too many times for one day: email.';
    const summary = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual([back, back]);
    expect(w.queue.row(2).claimedAt).toBeNull();
    expect(w.incidents.codes()).toEqual(['MAIL_QUOTA_EXHAUSTED']);
    expect(summary).toMatchObject({ sent: 0, deferred: 2, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' });
  });

  it.each(['Invalid email: mina@example', 'Limit Exceeded: Email Body Size.', 'Argument too large: subject'])(
    'a permanent mail error (%s) makes the row FAILED',
    (message) => {
      const w = world([ready()]);
      w.mailer.failWith = () => message;
      runProcessing(w.deps, start);
      expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', sentAt: null });
      expect(w.queue.row(2).error).toBe(`MAIL_PERMANENT: ${message}`);
    },
  );

  it('any other mail error is NEEDS_REVIEW and is never resent by later runs', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => 'Error sending email to mina.okafor@example.com. Please try again later.';
    runProcessing(w.deps, start);
    w.mailer.failWith = () => undefined;
    runProcessing(w.deps, start);
    w.clock.advance(2 * HOUR);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^MAIL_UNKNOWN: .*may or may not have been sent; it is not resent automatically/);
  });

  it.each([
    ['', 'MAIL_PERMANENT: no email address in the submission'],
    ['mina at example', 'MAIL_PERMANENT: not a valid email address: mina at example'],
  ])('a recipient "%s" cannot be mailed: FAILED saying so, without a claim', (recipient, error) => {
    const w = world([ready({ recipient })]);
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', error });
    expect(w.audit.entries.map((e) => `${e.from}>${e.to}`)).toEqual(['READY>FAILED']);
  });

  it('MAX_MAILS_PER_RUN: past it, rows wait READY and MAIL_LIMIT_REACHED says why', () => {
    const w = world(readyRows(3, { recipient: '' }).map((row, i) => ({ ...row, recipient: `r${i}@example.com` })), { MAX_MAILS_PER_RUN: '2' });
    const summary = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'READY']);
    expect(w.incidents.raised).toEqual([expect.objectContaining({ code: 'MAIL_LIMIT_REACHED', rows: [4] })]);
    expect(summary).toMatchObject({ sent: 2, deferred: 1, nextDueAt: T0 });
  });

  it.each([
    [HOUR, 'READY', 0],
    [25 * HOUR, 'SENT', 1],
  ])('MAX_MAILS_PER_RECIPIENT_PER_DAY=1 with an earlier mail %i ms ago: the row is %s', (ago, status, mails) => {
    const earlier = ready({ eventId: 'old', responseToken: 'old', status: 'SENT', sentAt: T0 - ago });
    const w = world([earlier, ready()], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1' });
    runProcessing(w.deps, start);
    expect(w.queue.row(3).status).toBe(status);
    expect(w.mailer.outbox).toHaveLength(mails);
    if (status === 'READY') expect(w.incidents.codes()).toEqual(['MAIL_LIMIT_REACHED']);
  });

  it('the recipient limit counts Mina+tag@Example.com as mina@example.com', () => {
    const earlier = ready({ eventId: 'old', responseToken: 'old', status: 'SENT', sentAt: T0 - HOUR, recipient: 'Mina.Okafor+essay1@Example.COM' });
    const w = world([earlier, ready({ recipient: 'mina.okafor+essay2@example.com' })], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1' });
    runProcessing(w.deps, start);
    expect(w.queue.row(3).status).toBe('READY');
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a recipient limit counts the mails sent earlier in the same run', () => {
    const w = world(readyRows(3), { MAX_MAILS_PER_RECIPIENT_PER_DAY: '2' });
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'READY']);
  });

  it('a broken body template holds the row READY with the reason on the row and a TEMPLATE_INVALID incident, other forms still send', () => {
    const w = world(readyRows(2), {}, [formConfig(), formConfig({ formId: 'Broken', body: '{{nope}}' })]);
    w.queue.edit(2, { formId: 'Broken' });
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'SENT']);
    expect(w.queue.row(2).error).toMatch(/^TEMPLATE_INVALID: .*\{\{nope\}\}/);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
    expect(w.incidents.cleared).not.toContain('TEMPLATE_INVALID');
  });

  it('a row that reaches READY without a mail_ref gets one before it is mailed', () => {
    const w = world([ready({ mailRef: '' })]);
    runProcessing(w.deps, start);
    expect(w.queue.row(2).mailRef).toMatch(/^FQ-/);
    expect(w.mailer.outbox[0].body).toContain(`Reference: ${w.queue.row(2).mailRef}`);
  });

  it('no secret reaches a row or a mail', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => 'failed with key=AIzaSyTESTKEY0123456789abcdefghij';
    runProcessing(w.deps, start);
    expect(JSON.stringify(w.queue.rows)).not.toContain('AIzaSyTESTKEY');
    expect(JSON.stringify(w.incidents.raised)).not.toContain('AIzaSyTESTKEY');
  });
});
