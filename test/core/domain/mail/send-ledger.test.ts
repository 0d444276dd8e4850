// The Log is the record of claimed sends, independent of the row's cells: a submission ever claimed is not mailed again without a person.
import { describe, expect, it } from 'vitest';
import { standingSendClaim, suppressedReason, unrecordedSendClaim } from '../../../../src/core/domain/mail/mail-guard';
import { factsOf } from '../../../../src/core/domain/mail/send-ledger';
import { suppressionIndex } from '../../../../src/core/domain/mail/suppression';
import type { LogEntry } from '../../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../../src/core/processing/process-run';
import { runSendStep } from '../../../../src/core/processing/send-step';
import { pendingRow, runOf, T0, world } from '../../memory-ports';

const MINUTE = 60_000;
const line = (minutesAgo: number, from: string, to: string, by = 'system'): LogEntry => ({
  at: T0 - minutesAgo * MINUTE,
  eventId: 'evt-ledger',
  from,
  to,
  by,
  detail: '',
});
const ready = () => pendingRow({ eventId: 'evt-ledger', responseToken: 'tok-ledger', status: 'READY', result: 'Dear Mina', mailRef: 'FQ-LEDGER' });

describe('standingSendClaim', () => {
  it.each<[string, LogEntry[], boolean]>([
    ['no line at all', [], false],
    ['generated, never claimed', [line(9, 'PENDING', 'GENERATING'), line(8, 'GENERATING', 'READY')], false],
    ['claimed and sent', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'SENT')], true],
    ['claimed, outcome unknown', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW')], true],
    ['claimed, then the mail quota refused it (nothing left)', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'READY')], false],
    ['claimed, then the platform refused the address (nothing left)', [line(5, 'APPROVED', 'SENDING'), line(4, 'SENDING', 'FAILED')], false],
    ['sent, then a person asked for a new reply', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'SENT'), line(3, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org')], false],
    ['a refused staff edit is no decision', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'NEEDS_REVIEW', 'ana@example.org')], true],
    ['a Log sorted by staff is read in time order', [line(3, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org'), line(4, 'SENDING', 'SENT'), line(5, 'READY', 'SENDING')], false],
    ['a new claim after the retry stands again', [line(9, 'READY', 'SENDING'), line(8, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org'), line(2, 'READY', 'SENDING')], true],
    ['claimed, then a person moved the row back to READY: only the system knows nothing left', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'READY', 'ana@example.org')], true],
    ['claimed, unknown outcome, then a person\'s paste of APPROVED', [line(5, 'APPROVED', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'APPROVED', 'ana@example.org')], true],
    ['claimed, unknown outcome, no copy in Sent after two looks: back to READY by the system', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'READY')], false],
    ['claimed, then a paste of GENERATING the system swept and generated again (GENERATING → READY is no word on the mail)',
      [line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'NEEDS_REVIEW'), line(7, '(unknown)', 'GENERATING', 'ana@example.org'), line(6, 'GENERATING', 'PENDING'), line(5, 'PENDING', 'GENERATING'), line(4, 'GENERATING', 'READY')], true],
    ['claimed, then a person\'s refused edit on a row the system had made PENDING is no request for a new reply',
      [line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'NEEDS_REVIEW'), line(7, '(unknown)', 'GENERATING', 'ana@example.org'), line(6, 'GENERATING', 'PENDING'), line(5, 'PENDING', 'PENDING', 'ana@example.org')], true],
  ])('%s → %s', (_name, history, stands) => {
    expect(standingSendClaim(history) !== null).toBe(stands);
  });

  it('the claim that stands is the claim line itself, not a later system line on the SENDING row (a put-back): the Sent check searches from its time', () => {
    const claim = line(20, 'READY', 'SENDING');
    expect(standingSendClaim([claim, line(5, 'SENDING', 'SENDING')])).toBe(claim);
  });
});

describe('unrecordedSendClaim: a standing claim no system line says was mailed', () => {
  const claim = line(5, 'READY', 'SENDING');
  it.each<[string, LogEntry[], LogEntry | null]>([
    ['claimed, then parked with an unknown outcome', [claim, line(4, 'SENDING', 'NEEDS_REVIEW')], claim],
    ['claimed and sent, then pasted back to NEEDS_REVIEW', [claim, line(4, 'SENDING', 'SENT'), line(3, '(unknown)', 'NEEDS_REVIEW', 'ana@example.org')], null],
    ['a send line written in the same millisecond as its claim', [claim, line(5, 'SENDING', 'SENT')], null],
    ['an earlier send, a new reply asked for, a new claim parked: the old send says nothing of it',
      [line(30, 'READY', 'SENDING'), line(29, 'SENDING', 'SENT'), line(20, 'SENT', 'PENDING', 'ana@example.org'), claim, line(4, 'SENDING', 'NEEDS_REVIEW')], claim],
    ['a person marking it SENT is no record of the mail', [claim, line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'SENT', 'ana@example.org')], claim],
    ['sent, then a person asked for a new reply: no claim stands', [claim, line(4, 'SENDING', 'SENT'), line(3, 'SENT', 'PENDING', 'ana@example.org')], null],
  ])('%s', (_name, history, unrecorded) => {
    expect(unrecordedSendClaim(history)).toBe(unrecorded);
  });
});

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

describe('suppressedReason', () => {
  it('names the recipient as the cell holds it, without the blanks around it', () => {
    const list = suppressionIndex([{ address: 'mina@example.org', reason: 'asked us to stop', addedBy: 'desk@example.org', addedAt: T0 }]);
    expect(suppressedReason({ recipient: '  Mina@example.org ' }, list)).toMatch(/^Mina@example\.org is on the Suppressed sheet \(added by desk@example\.org: asked us to stop\)/);
    expect(suppressedReason({ recipient: 'other@example.org' }, list)).toBeNull();
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
