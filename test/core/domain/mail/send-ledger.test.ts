// The send ledger: the facts a Log line carries, and the send step reading the Log, so a submission ever claimed is not mailed again without a person.
import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../src/core/domain/mail/send-ledger';
import { runProcessing } from '../../../../src/core/processing/process-run';
import { runSendStep } from '../../../../src/core/processing/send-step';
import { pendingRow, runOf, T0, world } from '../../memory-ports';
import { ledgerLine as line } from '../../fakes/log-lines';

const MINUTE = 60_000;
const ready = () => pendingRow({ eventId: 'evt-ledger', responseToken: 'tok-ledger', status: 'READY', result: 'Dear Mina', mailRef: 'FQ-LEDGER' });

describe('factsOf: only a fact written in the form withLedgerFacts writes counts', () => {
  it.each<[string, string, ReturnType<typeof factsOf>]>([
    ['a sender', 'claimed [ledger: mail_ref=FQ-LEDGER sender=ana@school.example]', { mailRef: 'FQ-LEDGER', sender: 'ana@school.example' }],
    ['an empty sender is no account', 'claimed [ledger: mail_ref=FQ-LEDGER sender=]', { mailRef: 'FQ-LEDGER' }],
    ['marked=1 is a claim the stale sweep may trust', 'claimed [ledger: mail_ref=FQ-LEDGER marked=1]', { mailRef: 'FQ-LEDGER', marked: true }],
    ['marked with any other value is not marked', 'claimed [ledger: mail_ref=FQ-LEDGER marked=0]', { mailRef: 'FQ-LEDGER' }],
    ['a 1 under another name is not marked', 'claimed [ledger: mail_ref=FQ-LEDGER tries=1]', { mailRef: 'FQ-LEDGER' }],
  ])('%s', (_name, detail, facts) => {
    expect(factsOf(detail)).toStrictEqual(facts);
  });
});

describe('the send step checks the Log before any claim', () => {
  it('a mailed row whose status and sent_at were pasted back to READY / empty is not mailed again', () => {
    const w = world([ready()]);
    w.audit.batches.push([line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'SENT')]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^ALREADY_CLAIMED: the Log shows this submission was claimed for sending at /);
    expect(summary.needsReview).toBe(1);
  });

  it.each<[string, string]>([
    ['recovered from Typeform under a reconciled: event_id', 'reconciled:tok-ledger'],
    ['delivered again under a new event_id after its first row was deleted', 'evt-second-delivery'],
  ])('a submission mailed through one row is not mailed through another of the same response %s', (_how, eventId) => {
    const again = { ...ready(), eventId, mailRef: '' };
    const w = world([again]);
    const identity = `tf:${again.formId}:tok-ledger`;
    w.audit.batches.push([{ ...line(5, 'READY', 'SENDING'), submission: identity }, { ...line(4, 'SENDING', 'SENT'), submission: identity }]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^ALREADY_CLAIMED: /);
  });

  it('another response of the same form is not held by that ledger', () => {
    const other = { ...ready(), eventId: 'evt-other', responseToken: 'tok-other', mailRef: '' };
    const w = world([other]);
    w.audit.batches.push([{ ...line(5, 'READY', 'SENDING'), submission: `tf:${other.formId}:tok-ledger` }]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('after a person asks for a new reply, it is mailed once', () => {
    const w = world([ready()]);
    w.audit.batches.push([line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org')]);
    runProcessing(w.deps, { startedAt: T0 });
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.row(2).status).toBe('SENT');
  });

  it('a send the mail quota refused before anything left goes out later, once', () => {
    const w = world([ready()]);
    w.audit.batches.push([line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'READY')]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('the Log is looked up once per run for every row the run may mail (by event_id and identity), not once per send', () => {
    const rows = [1, 2, 3, 4, 5, 6, 7].map((n) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, status: n <= 3 ? 'READY' : 'PENDING', result: n <= 3 ? 'Dear Mina' : '' }));
    const w = world(rows);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(7);
    expect(w.audit.lookups).toEqual([rows.flatMap((row) => [row.eventId, `tf:${row.formId}:${row.responseToken}`])]);
  });

  it('a claim the run\'s copy of the Log shows is read again before the row is parked: a person settling it meanwhile wins', () => {
    const w = world([ready()]);
    w.audit.batches.push([line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'NEEDS_REVIEW')]);
    w.audit.afterLookup = (audit) => {
      audit.batches.push([line(1, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org')]);
      audit.afterLookup = null;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.audit.lookups).toHaveLength(2);
    expect(w.mailer.outbox).toHaveLength(1);
  });
});

describe('one submission is claimed for sending once a run, whatever its rows', () => {
  it('two stale GENERATING rows of one submission (a staff copy of a row in flight) are swept back, collapsed, and mailed once', () => {
    const stale = { status: 'GENERATING', responseToken: 'tok-copy', claimedAt: T0 - 60 * MINUTE, attempts: 1 };
    const w = world([pendingRow({ ...stale, eventId: 'evt-copy' }), pendingRow({ ...stale, eventId: 'evt-copy' })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.rows.map((row) => row.status).sort()).toEqual(['DUPLICATE', 'SENT']);
  });

  it('two READY rows of one submission in one send batch: the first is claimed, the second goes to a person', () => {
    const ready2 = (eventId: string) => pendingRow({ eventId, responseToken: 'tok-twin', status: 'READY', result: 'Dear Mina' });
    const w = world([ready2('evt-a'), ready2('evt-b')]);
    const run = runOf(w);
    runSendStep(run);
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.row(3)).toMatchObject({ status: 'NEEDS_REVIEW' });
    expect(w.queue.row(3).error).toMatch(/^ALREADY_CLAIMED: another row of this submission was claimed for sending by the same run/);
  });
});
