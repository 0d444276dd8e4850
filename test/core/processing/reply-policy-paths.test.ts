// The reply policy on every path that mails: a written reply, a READY row from before the policy, an edit after the claim, an approval.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, okOutcome, pendingRow, T0, world, type World } from '../memory-ports';

const start = { startedAt: T0 };
const EVIL = 'Dear Mina, please confirm your account at https://evil.example/login today.';
const ready = (patch: Partial<QueueRow> = {}) => pendingRow({ status: 'READY', result: EVIL, mailRef: 'FQ-AAAAAA', attempts: 1, ...patch });
const logOf = (w: World) => w.audit.entries.map((entry) => `${entry.from}>${entry.to}`);

describe('the reply policy holds a reply on every path that mails', () => {
  it('a written reply that links outside waits as AWAITING_APPROVAL with the rule named, and is not mailed', () => {
    const w = world([pendingRow()]);
    w.gemini.respond = () => okOutcome(EVIL);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'AWAITING_APPROVAL', result: EVIL });
    expect(w.queue.row(2).error).toMatch(/^REPLY_POLICY: LINK_DOMAIN link to evil\.example is not allowed \(allowed_link_domains: none\)/);
    expect(logOf(w)).toEqual(['PENDING>GENERATING', 'GENERATING>AWAITING_APPROVAL']);
  });

  it('a form that asks for approval anyway still names the broken rule for the person who reads it', () => {
    const w = world([pendingRow()], {}, [formConfig({ approvalRequired: true })]);
    w.gemini.respond = () => okOutcome(EVIL);
    runProcessing(w.deps, start);
    expect(w.queue.row(2).status).toBe('AWAITING_APPROVAL');
    expect(w.queue.row(2).error).toMatch(/^REPLY_POLICY: LINK_DOMAIN/);
  });

  it('a reply within the policy goes out as before, with its error empty', () => {
    const w = world([pendingRow()], {}, [formConfig({ allowedLinkDomains: 'evil.example' })]);
    w.gemini.respond = () => okOutcome(EVIL);
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', error: '' });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a READY row from before the policy is checked before its claim: held for a person, never mailed', () => {
    const w = world([ready(), ready({ eventId: 'ok', responseToken: 'tok-ok', mailRef: 'FQ-BBBBBB', result: 'Dear Ana, thank you.' })]);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.subject)).toEqual(['Our reply to your submission (FQ-BBBBBB)']);
    expect(w.queue.row(2)).toMatchObject({ status: 'AWAITING_APPROVAL', claimedAt: null });
    expect(w.queue.row(2).error).toMatch(/^REPLY_POLICY: LINK_DOMAIN/);
  });

  it('a READY reply edited to break the policy between its claim and its mail goes back unmailed, then to a person', () => {
    const w = world([ready({ result: 'Dear Mina, well done.' })]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { result: 'Dear Mina, call +1 555 010 0199 now.' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY', claimedAt: null });
    expect(w.queue.row(2).error).toMatch(/^REPLY_POLICY: PHONE_NUMBER the phone number \+1 555 010 0199/);
    w.queue.beforeReadRows = null;
    runProcessing(w.deps, { startedAt: T0 + 60_000 });
    expect(w.mailer.outbox).toEqual([]);
    expect(w.queue.row(2).status).toBe('AWAITING_APPROVAL');
    expect(logOf(w)).toEqual(['READY>SENDING', 'SENDING>READY', 'READY>AWAITING_APPROVAL']);
  });

  it('an APPROVED row is mailed as the person left it: approving a held reply is the person deciding', () => {
    const w = world([ready({ status: 'APPROVED', error: 'REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed' })]);
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', error: '' });
    expect(w.mailer.outbox[0].body).toContain('https://evil.example/login');
  });

  it("a Config change that allows the domain lets a held row's next READY copy go, but never a held row by itself", () => {
    const w = world([ready({ status: 'AWAITING_APPROVAL', error: 'REPLY_POLICY: LINK_DOMAIN x' })], {}, [formConfig({ allowedLinkDomains: 'evil.example' })]);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toEqual([]);
    expect(w.queue.row(2).status).toBe('AWAITING_APPROVAL');
  });
});
