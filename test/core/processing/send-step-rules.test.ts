// The send step, one rule per case with exact rows, counters and incidents: each way a row can leave the step,
// and that the step goes on to the next row after every one of them except the mail quota.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import { sendsToRecipientToday } from '../../../src/core/processing/send-plan';
import { runSendStep } from '../../../src/core/processing/send-step';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { DAY_MS, HOUR_MS } from '../../../src/core/domain/time';
import { fixedRandom, formConfig, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const start = { startedAt: T0 };
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, status: 'READY', result: 'Dear Mina, well done.', mailRef: `FQ-AAAAA${n}`, attempts: 1, ...patch });
/** A second row, to another mailbox, that the step must still send. */
const next = () => ready(9, { recipient: 'other@example.com' });
const statuses = (w: World) => w.queue.rows.map((row) => row.status);
/** The row's Log lines, without the ledger suffix (send-ledger.test.ts covers it). */
const logOf = (w: World, eventId: string) =>
  w.audit.entries.filter((entry) => entry.eventId === eventId).map((entry) => `${entry.from}>${entry.to}: ${entry.detail.replace(/ \[ledger: [^\]]*\]$/, '')}`);

/** Acts once, right before the first read of a row: the read-back of the first claim, just before its mail. */
function atFirstRead(w: World, act: (queue: World['queue']) => void): void {
  let reads = 0;
  w.queue.beforeReadRows = (_numbers, queue) => {
    if (++reads === 1) act(queue);
  };
}

describe('sendsToRecipientToday', () => {
  const now = T0;
  const sent = (recipient: string, sentAt: number | null) => pendingRow({ recipient, sentAt });
  it.each<[string, QueueRow[], number]>([
    ['never sent', [sent('a@x.org', null)], 0],
    ['sent exactly 24 hours ago (a rolling day: no longer counted)', [sent('a@x.org', now - DAY_MS)], 0],
    ['sent just under 24 hours ago', [sent('a@x.org', now - DAY_MS + 1)], 1],
    ['sent to another mailbox', [sent('b@x.org', now - HOUR_MS)], 0],
    ['sent to the same mailbox written otherwise', [sent('A@X.org', now - HOUR_MS), sent('a+tag@x.org', now - HOUR_MS)], 2],
  ])('%s → %i', (_what, rows, count) => {
    expect(sendsToRecipientToday(rows, 'a@x.org', now)).toBe(count);
  });
});

describe('the send step goes on after a row it cannot send', () => {
  it('a row deleted since the run read the Queue', () => {
    const w = world([ready(1), next()]);
    w.queue.beforeReadRows = (numbers, queue) => {
      // Row 2 is gone (its cells cleared); the row below keeps its number.
      if (numbers.includes(2)) queue.rows = queue.rows.filter((row) => row.eventId !== 'evt-1');
    };
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
    expect(summary).toMatchObject({ sent: 1, failed: 0, deferred: 0, needsReview: 0 });
  });

  it.each<[string, Partial<QueueRow>]>([
    ['staff skipped it since the run read the Queue', { status: 'SKIPPED' }],
    ['staff approved it since (another status than the run saw)', { status: 'APPROVED' }],
    ['another submission now stands in its place', { eventId: 'evt-other' }],
    ['sent_at was filled since', { sentAt: T0 - 1 }],
  ])('a row %s is left as it is', (_what, patch) => {
    const w = world([ready(1), next()]);
    let writes = 0;
    // Right before the claims are written (compare-and-set against the rows as the run read them).
    w.queue.beforeWriteRows = (_rows, queue) => {
      if (++writes === 1) queue.edit(2, patch);
    };
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
    expect(w.queue.row(2)).toMatchObject(patch);
    expect(logOf(w, 'evt-1')).toEqual([]);
    expect(summary).toMatchObject({ sent: 1, failed: 0, deferred: 0, needsReview: 0 });
  });

  it('a recipient at MAX_MAILS_PER_RECIPIENT_PER_DAY waits, named in MAIL_LIMIT_REACHED', () => {
    const w = world([ready(1, { status: 'SENT', sentAt: T0 - HOUR_MS }), ready(2), next()], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1', MAX_MAILS_PER_RUN: '7' });
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
    expect(statuses(w)).toEqual(['SENT', 'READY', 'SENT']);
    expect(summary).toMatchObject({ sent: 1, deferred: 1 });
    expect(w.incidents.raised).toEqual([
      {
        code: 'MAIL_LIMIT_REACHED',
        detail: '1 row(s) wait: a recipient already got MAX_MAILS_PER_RECIPIENT_PER_DAY (1) mails in 24 hours, or this run reached MAX_MAILS_PER_RUN (7)',
        rows: [3],
      },
    ]);
    expect(w.incidents.cleared).not.toContain('MAIL_LIMIT_REACHED');
  });

  it('MAX_MAILS_PER_RUN reached: the rest wait, all named in MAIL_LIMIT_REACHED', () => {
    const w = world([ready(1), ready(2, { recipient: 'b@example.com' }), ready(3, { recipient: 'c@example.com' })], { MAX_MAILS_PER_RUN: '1' });
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['SENT', 'READY', 'READY']);
    expect(summary).toMatchObject({ sent: 1, deferred: 2 });
    expect(w.incidents.raised.map((incident) => [incident.code, incident.rows])).toEqual([['MAIL_LIMIT_REACHED', [3, 4]]]);
  });

  it('MAX_MAILS_PER_RUN reached in a later batch: that batch claims only what the run may still send', () => {
    const rows = Array.from({ length: 8 }, (_, i) => ready(i + 1, { recipient: `r${i + 1}@example.com` }));
    const w = world(rows, { MAX_MAILS_PER_RUN: '7' });
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual([...Array(7).fill('SENT'), 'READY']);
    expect(summary).toMatchObject({ sent: 7, deferred: 1 });
    expect(w.mailer.outbox).toHaveLength(7);
    expect(logOf(w, 'evt-8')).toEqual([]); // never claimed, so never put back either
  });

  it.each<[string, Record<string, string>, RegExp, string]>([
    ['a body template naming an unknown field (TEMPLATE_INVALID)', { body: 'Hi {{nickname}}' }, /^TEMPLATE_INVALID: .*\{\{nickname\}\}/, 'TEMPLATE_INVALID'],
    // A Config mistake is told as one, not as a template's (issue #30: TRUE typed into reply_to).
    ['a Config bcc that is no address (CONFIG_INVALID)', { bcc: 'not-an-address' }, /^CONFIG_INVALID: Config for form "Wr1tE5sy": bcc "not-an-address" is not a valid email address/, 'CONFIG_SHEET_INVALID'],
  ])('a row whose form has %s waits for the fix under its own incident; other forms still send', (_what, config, note, code) => {
    const w = world([ready(1), ready(2, { recipient: 'b@example.com' }), next()], {}, [formConfig({ formId: 'Wr1tE5sy', ...config })]);
    w.queue.edit(4, { formId: 'Other' });
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['READY', 'READY', 'SENT']);
    expect(summary).toMatchObject({ sent: 1, deferred: 2 });
    const [incident] = w.incidents.raised;
    expect(w.incidents.raised).toHaveLength(1);
    expect(incident.code).toBe(code);
    expect(incident.rows).toEqual([2, 3]);
    // The same problem twice is listed once.
    expect(incident.detail.split('\n')).toHaveLength(1);
    expect(w.queue.row(2).error).toMatch(note);
    expect(w.queue.row(3).error).toBe(w.queue.row(2).error);
    expect(w.incidents.cleared).not.toContain(code);
  });

  it('a row with no usable address is FAILED before any claim', () => {
    const w = world([ready(1, { recipient: 'mina.example.com' }), next()]);
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['FAILED', 'SENT']);
    expect(w.queue.row(2).error).toMatch(/^MAIL_PERMANENT: not a valid email address/);
    expect(logOf(w, 'evt-1')).toEqual([`READY>FAILED: ${w.queue.row(2).error}`]);
    expect(summary).toMatchObject({ sent: 1, failed: 1, deferred: 0 });
  });

  it('a row the Log shows claimed and unsettled goes to NEEDS_REVIEW, and the next row is sent', () => {
    const w = world([ready(1), next()]);
    const claim: LogEntry = { at: T0 - 5 * 60_000, eventId: 'evt-1', from: 'READY', to: 'SENDING', by: 'system', detail: '' };
    w.audit.batches.push([claim]);
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['NEEDS_REVIEW', 'SENT']);
    expect(w.queue.row(2).error).toBe(
      'ALREADY_CLAIMED: the Log shows this submission was claimed for sending at 2026-11-20T09:55:00.000Z and the mail may have gone; ' +
        'it is not mailed again until a person sets PENDING (write and send a new reply) or SENT',
    );
    expect(summary).toMatchObject({ sent: 1, needsReview: 1 });
  });

  it('a copy of a submission the Log shows mailed (its SENT row pasted over) goes to NEEDS_REVIEW carrying that mail_ref and sent_at, and is not mailed', () => {
    const w = world([ready(1), next()]);
    const claimed: LogEntry = { at: T0 - 5 * 60_000, eventId: 'evt-1', from: 'READY', to: 'SENDING', by: 'system', detail: ' [ledger: mail_ref=FQ-7K2M9Q claimed_at=2026-11-20T09:55:00.000Z]' };
    const mailed: LogEntry = { at: T0 - 5 * 60_000 + 900, eventId: 'evt-1', from: 'SENDING', to: 'SENT', by: 'system', detail: 'mailed [ledger: mail_ref=FQ-7K2M9Q sent_at=2026-11-20T09:55:00.900Z]' };
    w.audit.batches.push([claimed, mailed]);
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['NEEDS_REVIEW', 'SENT']);
    expect(w.queue.row(2)).toMatchObject({ mailRef: 'FQ-7K2M9Q', sentAt: T0 - 5 * 60_000 + 900 });
    expect(w.queue.row(2).error).toBe(
      'ALREADY_SENT: the Log shows this submission was mailed at 2026-11-20T09:55:00.900Z (FQ-7K2M9Q), so it is not mailed again; set PENDING to write and send a new reply',
    );
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
    expect(summary).toMatchObject({ sent: 1, needsReview: 1 });
  });

  it('a claim taken by another writer before the read-back is not mailed, and the next row is', () => {
    const w = world([ready(1), next()]);
    atFirstRead(w, (queue) => queue.edit(2, { claimedAt: T0 + 5000 }));
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
    expect(summary).toMatchObject({ sent: 1, failed: 0, needsReview: 0, deferred: 0 });
  });

  it('a claim taken from us after a sort moved it sets aside that row only, not the row now at its old place', () => {
    const w = world([ready(1), next(), pendingRow({ eventId: 'evt-p', responseToken: 'tok-p', recipient: 'p@example.com' })]);
    atFirstRead(w, (queue) => {
      queue.reorder(([first, second, third]) => [third, first, second]);
      queue.edit(3, { claimedAt: T0 + 5000 }); // evt-1, now row 3, claimed by another writer
    });
    runProcessing(w.deps, start);
    // The PENDING row sorted into row 2 is generated and mailed in the run's next round.
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com', 'p@example.com']);
  });

  it('a reply emptied between the claim and its read-back goes back to READY unsent', () => {
    const w = world([ready(1), next()]);
    atFirstRead(w, (queue) => queue.edit(2, { result: '' }));
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['READY', 'SENT']);
    expect(w.queue.row(2).claimedAt).toBeNull();
    expect(logOf(w, 'evt-1')).toEqual(['READY>SENDING: claimed for sending', 'SENDING>READY: Config template must be fixed before sending']);
    expect(summary).toMatchObject({ sent: 1, deferred: 1 });
  });

  it('an address broken between the claim and its read-back makes the row FAILED unsent', () => {
    const w = world([ready(1), next()]);
    atFirstRead(w, (queue) => queue.edit(2, { recipient: 'nobody' }));
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['FAILED', 'SENT']);
    expect(w.queue.row(2)).toMatchObject({ claimedAt: null, error: 'MAIL_PERMANENT: not a valid email address: nobody' });
    expect(summary).toMatchObject({ sent: 1, failed: 1 });
  });

  it.each<[string, string, string, Record<string, number>, RegExp]>([
    ['refused for good (permanent)', 'Invalid email: mina.okafor@example.com', 'FAILED', { failed: 1 }, /^MAIL_PERMANENT: Invalid email/],
    ['an error that may have sent it (unknown)', 'Server error, try again', 'NEEDS_REVIEW', { needsReview: 1 }, /^MAIL_UNKNOWN: Server error, try again — the mail may or may not have been sent; it is not resent automatically$/],
  ])('a mail %s leaves the row %s and the next row is sent', (_what, message, status, counted, error) => {
    const w = world([ready(1), next()]);
    w.mailer.failWith = (mail) => (mail.to === 'mina.okafor@example.com' ? message : undefined);
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual([status, 'SENT']);
    expect(w.queue.row(2).error).toMatch(error);
    expect(w.queue.row(2).claimedAt).toBeNull();
    expect(summary).toMatchObject({ sent: 1, failed: 0, needsReview: 0, ...counted });
  });
});

describe('the send step and rows it must not mail', () => {
  it('a READY row whose result is only blank lines and spaces has no reply: NEEDS_REVIEW with NO_REPLY, not mailed', () => {
    const w = world([ready(1, { result: ' \n\t \n' }), next()]);
    runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['NEEDS_REVIEW', 'SENT']);
    expect(w.queue.row(2).error).toMatch(/^NO_REPLY: the row is READY but its result is empty/);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
  });

  it('a row copied while staff sorted, between the claim and its read-back (two rows hold it), is not mailed', () => {
    const w = world([ready(1), next()]);
    atFirstRead(w, (queue) => {
      queue.reorder((rows) => rows.reverse());
      queue.appendRows([{ ...queue.rows.find((row) => row.eventId === 'evt-1')! }]);
    });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['other@example.com']);
  });

  it('with nothing to send, the Log is not read for the rows still to be generated', () => {
    const w = world([pendingRow({ eventId: 'evt-1', responseToken: 'tok-1', nextAttemptAt: T0 + HOUR_MS })]);
    runProcessing(w.deps, start);
    expect(w.audit.lookups).toEqual([]);
  });
});

describe('the send step, more rules', () => {
  it('two different template problems are listed one per line in one TEMPLATE_INVALID', () => {
    const w = world([ready(1), ready(2, { recipient: 'b@example.com', formId: 'Second' })], {}, [
      formConfig({ formId: 'Wr1tE5sy', body: 'Hi {{nickname}}' }),
      formConfig({ formId: 'Second', subject: 'About {{topic}}' }),
    ]);
    runProcessing(w.deps, start);
    const [incident] = w.incidents.raised;
    expect(incident.rows).toEqual([2, 3]);
    expect(incident.detail.split('\n')).toEqual([
      expect.stringMatching(/^Config for form "Wr1tE5sy": the body template uses \{\{nickname\}\}, which/),
      expect.stringMatching(/^Config for form "Second": the subject template uses \{\{topic\}\}, which/),
    ]);
  });

  it('a row FAILED for its address says nothing about the templates: TEMPLATE_INVALID is not cleared', () => {
    const w = world([ready(1, { recipient: 'nobody' })]);
    runProcessing(w.deps, start);
    expect(w.incidents.cleared).not.toContain('TEMPLATE_INVALID');
  });

  it('an error that is no template or Config mistake ends the run as a code bug', () => {
    const w = world([ready(1)]);
    w.deps.readPayload = () => {
      throw new TypeError('payload reader broke');
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('code-bug');
    expect(w.queue.row(2).status).toBe('READY');
  });

  it('a row the Log shows claimed is not claimed again at all: no claim, so no read-back', () => {
    const w = world([ready(1)]);
    w.audit.batches.push([{ at: T0 - 60_000, eventId: 'evt-1', from: 'READY', to: 'SENDING', by: 'system', detail: '' }]);
    let reads = 0;
    w.queue.beforeReadRows = (numbers) => {
      if (numbers.includes(2)) reads++;
    };
    runProcessing(w.deps, start);
    expect(reads).toBe(0);
    expect(logOf(w, 'evt-1').filter((line) => line.endsWith('claimed for sending'))).toEqual([]);
  });

  it('a row deleted between the claim and its read-back is not mailed and the run ends normally', () => {
    const w = world([ready(1)]);
    atFirstRead(w, (queue) => (queue.rows = []));
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox).toEqual([]);
    expect(summary.stoppedBecause).toBe('done');
  });

  it('a claim staff SKIPPED before the read-back is taken as SKIPPED: nothing is due afterwards', () => {
    const w = world([ready(1)]);
    atFirstRead(w, (queue) => queue.edit(2, { status: 'SKIPPED', claimedAt: null }));
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox).toEqual([]);
    expect(summary.nextDueAt).toBeNull();
  });
});

describe('the send step stops', () => {
  it('at the daily mail quota refused by MailApp: the row goes back as it was and the rest wait, named', () => {
    const w = world([ready(1, { recipient: 'a@example.com' }), ready(2), ready(3, { recipient: 'c@example.com' })]);
    w.mailer.failWith = (mail) => (mail.to === 'mina.okafor@example.com' ? 'Service invoked too many times for one day: email.' : undefined);
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['SENT', 'READY', 'READY']);
    expect(w.queue.row(3)).toMatchObject({ claimedAt: null });
    expect(logOf(w, 'evt-2')[2]).toBe('SENDING>READY: MAIL_QUOTA: Service invoked too many times for one day: email.');
    // The batch's next claim is not tried: it goes back unmailed, saying why.
    expect(logOf(w, 'evt-3')).toEqual(['READY>SENDING: claimed for sending', "SENDING>READY: not mailed: the daily mail quota is used up before this row's turn"]);
    expect(summary).toMatchObject({ sent: 1, deferred: 2, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED', stoppedBecause: 'done' });
    expect(w.incidents.raised).toEqual([
      { code: 'MAIL_QUOTA_EXHAUSTED', detail: 'the daily mail quota is used up; 2 row(s) wait as they are and are sent once it resets', rows: [3, 4] },
    ]);
    expect(w.incidents.cleared).not.toContain('MAIL_LIMIT_REACHED');
  });

  it.each([
    [0, []],
    [1, ['a@example.com']],
    [2, ['a@example.com', 'b@example.com']],
  ])('with %i recipients of quota left, mails exactly that many', (quota, sent) => {
    const w = world([ready(1, { recipient: 'a@example.com' }), ready(2, { recipient: 'b@example.com' })]);
    w.mailer.quota = quota;
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(sent);
    expect(summary.sendingHaltedBy).toBe(quota < 2 ? 'MAIL_QUOTA_EXHAUSTED' : null);
  });

  it('counts bcc addresses against the quota', () => {
    const w = world([ready(1)], {}, [formConfig({ bcc: 'tutor@example.com, lead@example.com' })]);
    w.mailer.quota = 2;
    expect(runProcessing(w.deps, start).sendingHaltedBy).toBe('MAIL_QUOTA_EXHAUSTED');
    w.mailer.quota = 3;
    expect(runProcessing(w.deps, start).sent).toBe(1);
  });

  it("when the run's budget ends between two mails", () => {
    const w = world([ready(1), next()], { RUN_BUDGET_SECONDS: '60' });
    w.mailer.failWith = () => {
      w.clock.advance(61_000);
      return undefined;
    };
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['SENT', 'READY']);
    expect(w.queue.row(3).claimedAt).toBeNull();
    expect(logOf(w, 'evt-9')).toEqual(['READY>SENDING: claimed for sending', "SENDING>READY: not mailed: the run's budget ended before this row's turn"]);
    expect(summary).toMatchObject({ sent: 1, deferred: 1, stoppedBecause: 'budget', sendingHaltedBy: null });
    expect(w.incidents.raised).toEqual([]);
  });

  it('when the budget has ended before a batch is planned: nothing more is claimed', () => {
    const rows = Array.from({ length: 6 }, (_, i) => ready(i + 1, { recipient: `r${i + 1}@example.com` }));
    const w = world(rows, { RUN_BUDGET_SECONDS: '60' });
    // The fifth mail, the last of the first batch, takes the run past its budget.
    w.mailer.failWith = () => {
      if (w.mailer.outbox.length === 4) w.clock.advance(61_000);
      return undefined;
    };
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual([...Array(5).fill('SENT'), 'READY']);
    expect(logOf(w, 'evt-6')).toEqual([]);
    expect(summary).toMatchObject({ sent: 5, stoppedBecause: 'budget' });
  });
});

describe('the send step reports a budget that ends within it', () => {
  it.each([
    ['between two mails of one batch (the rest of the batch goes back)', 2, 0],
    ['with the last mail of a batch, before the next batch is planned', 6, 4],
  ])('%s: the step says the run stopped for the budget', (_case, rows, passedAtMail) => {
    const w = world(Array.from({ length: rows }, (_, i) => ready(i + 1, { recipient: `r${i + 1}@example.com` })), { RUN_BUDGET_SECONDS: '60' });
    w.mailer.failWith = () => {
      if (w.mailer.outbox.length === passedAtMail) w.clock.advance(61_000);
      return undefined;
    };
    const run = runOf(w);
    runSendStep(run);
    expect(run.summary).toMatchObject({ sent: passedAtMail + 1, stoppedBecause: 'budget' });
  });
});

describe('a sent row', () => {
  it('is claimed with its error cleared, then SENT with sent_at, logged with its reference', () => {
    const w = world([ready(1, { error: 'MAIL_QUOTA: earlier' })]);
    let errorAtSend: string | null = null;
    w.mailer.failWith = () => {
      errorAtSend = w.queue.row(2).error;
      return undefined;
    };
    runProcessing(w.deps, start);
    expect(errorAtSend).toBe('');
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: T0, claimedAt: null, error: '' });
    expect(w.audit.entries.map((entry) => `${entry.from}>${entry.to}: ${entry.detail}`)).toEqual([
      'READY>SENDING: claimed for sending [ledger: mail_ref=FQ-AAAAA1 claimed_at=2026-11-20T10:00:00.000Z marked=1]',
      'SENDING>SENDING: about to send',
      'SENDING>SENT: mailed to the respondent (FQ-AAAAA1) [ledger: mail_ref=FQ-AAAAA1 sent_at=2026-11-20T10:00:00.000Z]',
    ]);
    expect(w.incidents.cleared).toEqual(expect.arrayContaining(['MAIL_QUOTA_EXHAUSTED', 'MAIL_LIMIT_REACHED', 'TEMPLATE_INVALID']));
  });

  it('without a reference gets one no other row has', () => {
    const w = world([ready(1, { status: 'SENT', sentAt: T0 - DAY_MS * 2, mailRef: 'FQ-GGGGGG' }), ready(2, { mailRef: '' })]);
    // The first reference drawn (all 0.5 → GGGGGG) is taken; the second (all 0 → 000000) is free.
    w.deps.random = fixedRandom(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0);
    runProcessing(w.deps, start);
    expect(w.queue.row(3)).toMatchObject({ status: 'SENT', mailRef: 'FQ-000000' });
  });
});
