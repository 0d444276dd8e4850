// The bounce check (RECONCILE_BOUNCES): Gmail's failure notices read, matched to the reply, the row marked BOUNCED and
// the address suppressed; bounded to one check every BOUNCE_CHECK_MINUTES.
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../src/core/domain/failures/errors';
import { bouncesSince, matchBounce, readBounce, readBounceCheckState, tallyBounces } from '../../../src/core/processing/bounces';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { BounceNotice } from '../../../src/core/domain/ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { MemoryBounceMailbox, MemorySuppression, pendingRow, T0, world } from '../memory-ports';

const MINUTE = 60_000;
const start = { startedAt: T0 };
const human = (address: string) =>
  `** Address not found **\n\nYour message wasn't delivered to ${address} because the address couldn't be found, or is unable to receive mail.`;
const status = (address: string, code = '5.1.1') =>
  `Reporting-MTA: dns; googlemail.com\n\nFinal-Recipient: rfc822; ${address}\nAction: failed\nStatus: ${code}\nDiagnostic-Code: smtp; 550 ${code} The email account that you tried to reach does not exist.`;
/** A notice as src/gas/bounce-mailbox.ts reads Gmail's: with the original's text inline (ref) or not. */
const notice = (id: string, address: string, patch: Partial<BounceNotice> & { ref?: string } = {}): BounceNotice => ({
  id,
  receivedAt: T0 - MINUTE,
  from: 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>',
  subject: 'Delivery Status Notification (Failure)',
  failedRecipients: address,
  text: [human(address), status(address), patch.ref ? `Subject: Our reply\nDear Mina\nReference: ${patch.ref}` : ''].join('\n'),
  ...patch,
});
const sent = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'SENT', eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, mailRef: `FQ-AAAAA${n}`, sentAt: T0 - 10 * MINUTE, result: 'x', ...patch });

describe('readBounce: Gmail\'s failure notice', () => {
  it('reads the failed address, the reason (Gmail\'s heading and the server\'s answer) and the references it quotes', () => {
    expect(readBounce(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }))).toEqual({
      id: 'n1',
      receivedAt: T0 - MINUTE,
      failed: ['r1@example.com'],
      reason: 'Address not found (550 5.1.1 The email account that you tried to reach does not exist.)',
      refs: ['FQ-AAAAA1'],
    });
  });

  it('finds the address in Final-Recipient without X-Failed-Recipients, and in the human text without either', () => {
    expect(readBounce(notice('n', 'r1@example.com', { failedRecipients: '' }))?.failed).toEqual(['r1@example.com']);
    expect(readBounce(notice('n', 'r1@example.com', { failedRecipients: '', text: human('r1@example.com') }))?.failed).toEqual(['r1@example.com']);
  });

  it.each([
    ['a delay notice', { subject: 'Delivery Status Notification (Delay)', text: 'Action: delayed' }],
    ['mail from a person', { from: 'Ann <ann@example.org>' }],
  ])('%s is no bounce', (_name, patch) => {
    expect(readBounce(notice('n', 'r1@example.com', patch))).toBeNull();
  });
});

describe('matchBounce', () => {
  const bounce = (patch: Partial<BounceNotice> & { ref?: string } = {}) => readBounce(notice('n', 'r1@example.com', patch))!;

  it('by the Reference it quotes, when the row\'s recipient failed', () => {
    const rows = [sent(1, { sentAt: T0 - 2 * MINUTE }), sent(2, { recipient: 'r1@example.com', sentAt: T0 - 3 * MINUTE })];
    expect(matchBounce(bounce({ ref: 'FQ-AAAAA2' }), rows)).toMatchObject({ kind: 'row', row: { eventId: 'evt-2' } });
  });

  it('without a Reference shown: the latest reply to the failed address sent before the notice (5 minutes\' clock margin), within three days', () => {
    const rows = [sent(1, { sentAt: T0 - 4 * 24 * 60 * MINUTE }), sent(3, { recipient: 'R1@example.com', sentAt: T0 - 30 * MINUTE }), sent(4, { recipient: 'r1@example.com', sentAt: T0 + 5 * MINUTE })];
    expect(matchBounce(bounce(), rows)).toMatchObject({ kind: 'row', row: { eventId: 'evt-3' }, address: 'r1@example.com' });
    expect(matchBounce(bounce(), [rows[0]])).toEqual({ kind: 'none' });
    // sent_at is stamped after MailApp returns: a notice stamped by Gmail a moment earlier is still about it.
    expect(matchBounce(bounce(), [sent(5, { recipient: 'r1@example.com', sentAt: T0 - MINUTE + 1000 })])).toMatchObject({ kind: 'row', row: { eventId: 'evt-5' } });
  });

  it('a Reference of ours whose row is gone still names the address; a notice about nothing of ours matches nothing', () => {
    expect(matchBounce(bounce({ ref: 'FQ-ZZZZZZ' }), [])).toEqual({ kind: 'address', address: 'r1@example.com', ref: 'FQ-ZZZZZZ' });
    expect(matchBounce(bounce(), [sent(2)])).toEqual({ kind: 'none' });
  });
});

describe('runProcessing: the bounce check', () => {
  const setup = (rows: QueueRow[], props: Record<string, string> = { RECONCILE_BOUNCES: 'true' }) => {
    const w = world(rows, props);
    const inbox = new MemoryBounceMailbox();
    const list = new MemorySuppression();
    w.deps.bounceMail = inbox;
    w.deps.suppression = list;
    return { w, inbox, list };
  };

  it('marks the SENT row BOUNCED with the address and reason (status kept) and suppresses the address; the next reply to it is not mailed', () => {
    const { w, inbox, list } = setup([sent(1), pendingRow({ status: 'READY', eventId: 'evt-9', responseToken: 'tok-9', recipient: 'r1@example.com', result: 'Hi', attempts: 1 })]);
    inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    const summary = runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT' });
    expect(w.queue.row(2).error).toMatch(/^BOUNCED: r1@example.com: Address not found \(550 5\.1\.1 .*\) \(delivery-failure notice n1 at .*\); the address is on the Suppressed sheet now$/);
    expect(list.entries).toEqual([{ address: 'r1@example.com', reason: 'bounced: Address not found (550 5.1.1 The email account that you tried to reach does not exist.)', addedBy: 'bounce', addedAt: T0 }]);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(3)).toMatchObject({ status: 'NEEDS_REVIEW' });
    expect(w.queue.row(3).error).toMatch(/^SUPPRESSED: r1@example.com is on the Suppressed sheet \(added by bounce: bounced: Address not found/);
    // The bounce is tallied by the hour its notice arrived (09:59 → the 09:00 hour), for the health figures.
    expect(summary.bounceCheck).toEqual({ at: T0, seen: ['n1'], bounced: [[T0 - 60 * MINUTE, 1]] });
    expect(inbox.queries).toEqual([`from:mailer-daemon after:${(T0 - 24 * 60 * MINUTE) / 1000}`]);
  });

  it('runs at most every BOUNCE_CHECK_MINUTES: a run before then asks Gmail nothing', () => {
    const { w, inbox } = setup([sent(1)]);
    w.deps.bounceCheck = { at: T0 - 29 * MINUTE, seen: [] };
    runProcessing(w.deps, start);
    expect(inbox.queries).toEqual([]);
    w.deps.bounceCheck = { at: T0 - 30 * MINUTE, seen: [] };
    runProcessing(w.deps, start);
    expect(inbox.queries).toEqual([`from:mailer-daemon after:${(T0 - 90 * MINUTE) / 1000}`]);
  });

  it('a notice the last check read is not read again, and an address already suppressed is not added twice', () => {
    const { w, inbox, list } = setup([sent(1), sent(2)]);
    list.entries.push({ address: 'R2@example.com', reason: 'asked to stop', addedBy: 'desk', addedAt: null });
    inbox.notices.push(notice('old', 'r1@example.com', { ref: 'FQ-AAAAA1' }), notice('new', 'r2@example.com', { ref: 'FQ-AAAAA2' }));
    w.deps.bounceCheck = { at: T0 - 30 * MINUTE, seen: ['old'] };
    const summary = runProcessing(w.deps, start);
    expect(inbox.reads).toEqual(['new']);
    expect(w.queue.row(2).error).toBe('');
    expect(w.queue.row(3).error).toMatch(/^BOUNCED: r2@example.com/);
    expect(list.entries).toHaveLength(1);
    expect(summary.bounceCheck?.seen.sort()).toEqual(['new', 'old']);
  });

  it('without a Suppressed sheet the row is marked, CONFIG_MISSING is raised, and the check is not recorded: the next run (after Set up) adds the address', () => {
    const { w, inbox, list } = setup([sent(1)]);
    list.add = () => {
      throw codedError('CONFIG_MISSING', 'The spreadsheet has no "Suppressed" sheet. Run formqueue → Set up / repair from the spreadsheet menu.');
    };
    inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    const summary = runProcessing(w.deps, start);
    expect(w.incidents.codes()).toEqual(['CONFIG_MISSING']);
    expect(w.queue.row(2).error).toMatch(/^BOUNCED: /);
    expect(summary.bounceCheck).toBeUndefined();
  });

  it('off by default: no search at all', () => {
    const { w, inbox } = setup([sent(1)], {});
    runProcessing(w.deps, start);
    expect(inbox.queries).toEqual([]);
  });

  it('a failing search raises BOUNCE_CHECK_FAILED, records no check (the next run tries again) and does not stop sending', () => {
    const { w, inbox } = setup([pendingRow({ status: 'READY', result: 'Hi', attempts: 1 })]);
    inbox.failWith = 'Request had insufficient authentication scopes.';
    const summary = runProcessing(w.deps, start);
    expect(w.incidents.codes()).toEqual(['BOUNCE_CHECK_FAILED']);
    expect(summary.bounceCheck).toBeUndefined();
    expect(w.mailer.outbox).toHaveLength(1);
  });
});

describe('the bounce tally for the health figures', () => {
  const HOUR = 60 * MINUTE;
  it.each([
    ['a bounce goes in the hour its notice arrived', [], [T0 - MINUTE, T0 - 2 * MINUTE], [[T0 - HOUR, 2]]],
    ['hours are added to, and kept in time order', [[T0 - 3 * HOUR, 1]], [T0 + MINUTE], [[T0 - 3 * HOUR, 1], [T0, 1]]],
    ['an hour more than a day before now is dropped (24 hours and the one the day starts in are kept)', [[T0 - 26 * HOUR, 4], [T0 - 24 * HOUR, 3]], [], [[T0 - 24 * HOUR, 3]]],
    ['a notice older than a day (the first check looks back 24 hours) counts only while its hour is kept', [], [T0 - 25 * HOUR - MINUTE], []],
  ] as [string, [number, number][], number[], [number, number][]][])('%s', (_case, tally, times, expected) => {
    expect(tallyBounces(tally, times, T0)).toEqual(expected);
  });

  it('bouncesSince counts the hours from the one that holds `since`; no check yet counts 0', () => {
    const state = { at: T0, seen: [], bounced: [[T0 - 25 * HOUR, 9], [T0 - 24 * HOUR, 2], [T0 - HOUR, 3]] as [number, number][] };
    expect(bouncesSince(state, T0 - 24 * HOUR + 30 * MINUTE)).toBe(5);
    expect(bouncesSince(state, T0 - HOUR)).toBe(3);
    expect(bouncesSince(null, T0)).toBe(0);
  });

  it('the property keeps the tally; a property from before it, or a mangled one, reads without it', () => {
    const stored = (value: unknown) => readBounceCheckState({ FQ_BOUNCE_CHECK: JSON.stringify(value) });
    expect(stored({ at: T0, seen: ['a'], bounced: [[T0, 2]] })).toEqual({ at: T0, seen: ['a'], bounced: [[T0, 2]] });
    expect(stored({ at: T0, seen: ['a'] })).toEqual({ at: T0, seen: ['a'] });
    expect(stored({ at: T0, seen: [], bounced: [[T0, 'x'], [1], 'y'] })).toEqual({ at: T0, seen: [] });
  });

  it('a run counts only notices about replies of ours, adds them to the tally it was given, and drops what is older than a day', () => {
    const w = world([sent(1), sent(2)], { RECONCILE_BOUNCES: 'true' });
    const inbox = new MemoryBounceMailbox();
    w.deps.bounceMail = inbox;
    w.deps.suppression = new MemorySuppression();
    w.deps.bounceCheck = { at: T0 - 30 * MINUTE, seen: [], bounced: [[T0 - 30 * HOUR, 5], [T0 - 2 * HOUR, 1]] };
    inbox.notices.push(
      notice('a', 'r1@example.com', { ref: 'FQ-AAAAA1' }),
      notice('b', 'r2@example.com', { ref: 'FQ-AAAAA2' }),
      notice('c', 'stranger@example.net'), // the account's own mail: not ours, not counted
    );
    const summary = runProcessing(w.deps, start);
    expect(summary.bounceCheck?.bounced).toEqual([[T0 - 2 * HOUR, 1], [T0 - HOUR, 2]]);
    expect(bouncesSince(summary.bounceCheck ?? null, T0 - 24 * HOUR)).toBe(3);
  });
});
