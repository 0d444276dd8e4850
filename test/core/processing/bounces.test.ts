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

describe('readBounce: which addresses failed', () => {
  const read = (failedRecipients: string, text: string, subject = 'Delivery Status Notification (Failure)') =>
    readBounce(notice('n', 'r1@example.com', { failedRecipients, text, subject }));
  const bounceOf = (failed: string[], reason = 'delivery failed') => ({ id: 'n', receivedAt: T0 - MINUTE, failed, reason, refs: [] });

  it('a notice whose subject does not say "(Failure)" is a bounce when a line starts with "Action: failed", spaced or not', () => {
    expect(read('r1@example.com', 'Action: failed', 'Undeliverable')).toEqual(bounceOf(['r1@example.com']));
    expect(read('r1@example.com', 'Action:failed', 'Undeliverable')).toEqual(bounceOf(['r1@example.com']));
  });

  it('a notice whose subject does not say "(Failure)" and that says "Action: failed" only mid-line is no bounce', () => {
    expect(read('r1@example.com', 'Note: the last Action: failed, retrying later', 'Undeliverable')).toBeNull();
  });

  it('every address the notice names failed: X-Failed-Recipients first (blank parts skipped), then the recipient lines', () => {
    expect(read('R9@Example.com, , r1@example.com', `${status('r1@example.com')}\nOriginal-Recipient: rfc822; r2@example.com`)).toEqual(
      bounceOf(['r9@example.com', 'r1@example.com', 'r2@example.com'], '550 5.1.1 The email account that you tried to reach does not exist.'),
    );
  });

  it('a Final-Recipient line is read with or without spaces around "rfc822;"', () => {
    expect(read('', 'Final-Recipient:rfc822;r1@example.com\nAction: failed')).toEqual(bounceOf(['r1@example.com']));
    expect(read('', 'Final-Recipient: rfc822; r2@example.com\nAction: failed')).toEqual(bounceOf(['r2@example.com']));
  });

  it('a recipient header under another name (X-Original-Recipient) is not read', () => {
    expect(read('r1@example.com', 'Action: failed\nX-Original-Recipient: rfc822; r2@example.com')).toEqual(bounceOf(['r1@example.com']));
  });

  it('a recipient line without an address names nothing, so the human text is read instead', () => {
    expect(read('', `Final-Recipient: rfc822; unknown\nAction: failed\nYour message wasn't delivered to r1@example.com because it failed.`)).toEqual(
      bounceOf(['r1@example.com']),
    );
  });

  it('the human text is not read when a header names an address', () => {
    expect(read('r1@example.com', `Action: failed\nYour message wasn't delivered to r2@example.com because it failed.`)).toEqual(bounceOf(['r1@example.com']));
  });

  it('the human text\'s address may follow a line break and spaces, in brackets, and a full stop after it is not part of it', () => {
    expect(read('', `Your message wasn't delivered to\n  <r1@example.com>.`)).toEqual(bounceOf(['r1@example.com']));
    expect(read('', `Your message wasn't delivered to r2@example.com.`)).toEqual(bounceOf(['r2@example.com']));
  });

  it('a failure notice that names no address anywhere is no bounce', () => {
    expect(read('', '** Address not found **\nAction: failed')).toBeNull();
  });
});

describe('readBounce: the reason', () => {
  const reasonOf = (text: string) => readBounce(notice('n', 'r1@example.com', { text }))?.reason;

  it('the server\'s answer alone when Gmail gives no heading; the heading alone when the server gave no answer; else "delivery failed"', () => {
    expect(reasonOf('Action: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 No such user')).toBe('550 5.1.1 No such user');
    expect(reasonOf('** Address not found **\nAction: failed')).toBe('Address not found');
    expect(reasonOf('Action: failed')).toBe('delivery failed');
  });

  it('a heading with no spaces inside its stars is read', () => {
    expect(reasonOf('**Address not found**\nDiagnostic-Code: smtp; 550 No such user')).toBe('Address not found (550 No such user)');
  });

  it('the answer is trimmed, "smtp;" is dropped with or without a space after it, and another type is kept', () => {
    expect(reasonOf('** Address not found **\nDiagnostic-Code: smtp; 550 No such user   \nAction: failed')).toBe('Address not found (550 No such user)');
    expect(reasonOf('Diagnostic-Code:smtp;550 5.1.1 No such user')).toBe('550 5.1.1 No such user');
    expect(reasonOf('Diagnostic-Code: X-Postfix; host said: 550 unknown')).toBe('X-Postfix; host said: 550 unknown');
  });

  it('a Diagnostic-Code or Status under another header name is not read', () => {
    expect(reasonOf('** Address not found **\nX-Diagnostic-Code: smtp; 550 Old answer\nX-Status: 5.1.1')).toBe('Address not found');
  });

  it('without a Diagnostic-Code, the Status (one to three digits a part) is the answer', () => {
    expect(reasonOf('** Address not found **\nStatus: 5.7.26')).toBe('Address not found (status 5.7.26)');
    expect(reasonOf('** Address not found **\nStatus:5.10.1')).toBe('Address not found (status 5.10.1)');
  });

  it('a reason of 200 characters is kept whole; a longer one is cut to 199 and an ellipsis', () => {
    expect(reasonOf(`Diagnostic-Code: smtp; ${'a'.repeat(200)}`)).toBe('a'.repeat(200));
    expect(reasonOf(`Diagnostic-Code: smtp; ${'a'.repeat(201)}`)).toBe(`${'a'.repeat(199)}…`);
  });
});

describe('matchBounce: edges', () => {
  const bounceFor = (failedRecipients: string, text = 'Action: failed', receivedAt = T0 - MINUTE) =>
    readBounce(notice('n', 'r1@example.com', { failedRecipients, text, receivedAt }))!;
  const DAY = 24 * 60 * MINUTE;

  it('of several failed addresses, the match names the one that is the row\'s recipient', () => {
    const row = sent(1);
    expect(matchBounce(bounceFor('r9@example.com, r1@example.com', 'Action: failed\nReference: FQ-AAAAA1'), [row])).toEqual({ kind: 'row', row, address: 'r1@example.com' });
    expect(matchBounce(bounceFor('r9@example.com, r1@example.com'), [row])).toEqual({ kind: 'row', row, address: 'r1@example.com' });
  });

  it('a quoted Reference whose row was never sent names only the address', () => {
    expect(matchBounce(bounceFor('r1@example.com', 'Action: failed\nReference: FQ-AAAAA1'), [sent(1, { sentAt: null })])).toEqual({
      kind: 'address',
      address: 'r1@example.com',
      ref: 'FQ-AAAAA1',
    });
  });

  it('a Reference of ours with no row and several failed addresses matches nothing', () => {
    expect(matchBounce(bounceFor('r9@example.com, r1@example.com', 'Action: failed\nReference: FQ-ZZZZZZ'), [])).toEqual({ kind: 'none' });
  });

  it('by address, the latest of several replies wins whatever their order; of two sent at the same time, the first', () => {
    const older = sent(1, { sentAt: T0 - 30 * MINUTE });
    const newer = sent(2, { recipient: 'r1@example.com', sentAt: T0 - 20 * MINUTE });
    const twin = sent(3, { recipient: 'r1@example.com', sentAt: T0 - 20 * MINUTE });
    expect(matchBounce(bounceFor('r1@example.com'), [older, newer])).toEqual({ kind: 'row', row: newer, address: 'r1@example.com' });
    expect(matchBounce(bounceFor('r1@example.com'), [newer, older])).toEqual({ kind: 'row', row: newer, address: 'r1@example.com' });
    expect(matchBounce(bounceFor('r1@example.com'), [newer, twin])).toEqual({ kind: 'row', row: newer, address: 'r1@example.com' });
  });

  it('a reply sent exactly 5 minutes after the notice, or exactly three days before it, is still matched', () => {
    const late = sent(1, { sentAt: T0 - MINUTE + 5 * MINUTE });
    const early = sent(1, { sentAt: T0 - MINUTE - 3 * DAY });
    expect(matchBounce(bounceFor('r1@example.com'), [late])).toEqual({ kind: 'row', row: late, address: 'r1@example.com' });
    expect(matchBounce(bounceFor('r1@example.com'), [early])).toEqual({ kind: 'row', row: early, address: 'r1@example.com' });
  });

  it('a row without sent_at is never matched by address, whenever the notice arrived', () => {
    expect(matchBounce(bounceFor('r1@example.com', 'Action: failed', MINUTE), [sent(1, { sentAt: null })])).toEqual({ kind: 'none' });
  });
});

describe('the bounce tally: edges', () => {
  const HOUR = 60 * MINUTE;

  it('the hour that starts a day and an hour before now is dropped, from the tally and from new times; the next hour is kept', () => {
    expect(tallyBounces([[T0 - 25 * HOUR, 4]], [T0 - 25 * HOUR + MINUTE], T0)).toEqual([]);
    expect(tallyBounces([], [T0 - 24 * HOUR + MINUTE], T0)).toEqual([[T0 - 24 * HOUR, 1]]);
  });

  it('a new hour earlier than the tally\'s goes before them', () => {
    expect(tallyBounces([[T0, 1]], [T0 - 3 * HOUR + MINUTE], T0)).toEqual([[T0 - 3 * HOUR, 1], [T0, 1]]);
  });
});

describe('readBounceCheckState: what the property holds', () => {
  const raw = (value: string) => readBounceCheckState({ FQ_BOUNCE_CHECK: value });

  it('no property, or one that is not JSON, reads as no check', () => {
    expect(readBounceCheckState({})).toBe(null);
    expect(raw('{')).toBe(null);
  });

  it('a property without a finite time reads as no check', () => {
    expect(raw('{"seen":[]}')).toBe(null);
    expect(raw('{"at":1e999,"seen":[]}')).toBe(null);
  });

  it('seen keeps only the ids (strings), and reads as none when missing', () => {
    expect(raw(`{"at":${T0}}`)).toEqual({ at: T0, seen: [] });
    expect(raw(`{"at":${T0},"seen":["a",1,null]}`)).toEqual({ at: T0, seen: ['a'] });
  });

  it('a tally pair holding a number too large to keep is dropped', () => {
    expect(raw('{"at":1,"seen":[],"bounced":[[1e999,2],[3,4]]}')).toEqual({ at: 1, seen: [], bounced: [[3, 4]] });
  });
});
