// The run's bounce check (bounce-step.ts): when it reads the inbox, what each failure notice marks and suppresses, and what it records for the next check.
import { describe, expect, it } from 'vitest';
import { bounceCheckDue, runBounceCheck } from '../../../src/core/processing/bounce-step';
import type { BounceCheckState } from '../../../src/core/processing/bounces';
import type { Run } from '../../../src/core/processing/run-context';
import { codedError } from '../../../src/core/domain/failures/errors';
import type { BounceNotice } from '../../../src/core/domain/ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { SuppressedEntry } from '../../../src/core/domain/mail/suppression';
import { MemoryBounceMailbox, MemorySuppression, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ON = { RECONCILE_BOUNCES: 'true' };
const REASON = 'Address not found (550 5.1.1 The email account that you tried to reach does not exist.)';
const iso = (ms: number) => new Date(ms).toISOString();

/** Gmail's failure notice for `address`, as src/gas/bounce-mailbox.ts reads it: quoting the reply's Reference when `ref` is given. */
const notice = (id: string, address: string, patch: Partial<BounceNotice> & { ref?: string } = {}): BounceNotice => ({
  id,
  receivedAt: T0 - MINUTE,
  from: 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>',
  subject: 'Delivery Status Notification (Failure)',
  failedRecipients: address,
  text: [
    `** Address not found **\n\nYour message wasn't delivered to ${address} because the address couldn't be found, or is unable to receive mail.`,
    `Final-Recipient: rfc822; ${address}\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 The email account that you tried to reach does not exist.`,
    patch.ref ? `Subject: Our reply\nReference: ${patch.ref}` : '',
  ].join('\n'),
  ...patch,
});
/** Row n, SENT ten minutes ago to rN@example.com with reference FQ-AAAAAn. */
const sent = (n: number, patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ status: 'SENT', eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, mailRef: `FQ-AAAAA${n}`, sentAt: T0 - 10 * MINUTE, result: 'x', ...patch });
/** The row's `error` once its reply bounced (notice `id`, received a minute before T0). */
const bouncedError = (address: string, id: string) =>
  `BOUNCED: ${address}: ${REASON} (delivery-failure notice ${id} at ${iso(T0 - MINUTE)}); the address is on the Suppressed sheet now`;
const suppressedBy = (address: string): SuppressedEntry => ({ address, reason: `bounced: ${REASON}`, addedBy: 'bounce', addedAt: T0 });
const queryAfter = (since: number) => `from:mailer-daemon after:${Math.floor(since / 1000)}`;

interface Setup extends World {
  inbox: MemoryBounceMailbox;
  list: MemorySuppression;
  run: Run;
}

function setUp(rows: QueueRow[], last: BounceCheckState | null = null, props: Record<string, string> = ON): Setup {
  const w = world(rows, props) as Setup;
  w.inbox = new MemoryBounceMailbox();
  w.list = new MemorySuppression();
  w.deps.bounceMail = w.inbox;
  w.deps.suppression = w.list;
  w.deps.bounceCheck = last;
  w.run = runOf(w);
  return w;
}

describe('bounceCheckDue: at most one check every BOUNCE_CHECK_MINUTES', () => {
  it.each<[string, BounceCheckState | null, number, boolean]>([
    ['no check yet', null, 30, true],
    ['the last one exactly BOUNCE_CHECK_MINUTES ago', { at: T0 - 30 * MINUTE, seen: [] }, 30, true],
    ['the last one longer ago', { at: T0 - 31 * MINUTE, seen: [] }, 30, true],
    ['the last one a millisecond short of it', { at: T0 - 30 * MINUTE + 1, seen: [] }, 30, false],
    ['the last one a minute ago', { at: T0 - MINUTE, seen: [] }, 30, false],
    ['every 5 minutes, 5 minutes on', { at: T0 - 5 * MINUTE, seen: [] }, 5, true],
    ['every 5 minutes, 4 minutes on', { at: T0 - 4 * MINUTE, seen: [] }, 5, false],
  ])('%s: %s', (_case, last, minutes, due) => {
    expect(bounceCheckDue(last, T0, minutes)).toBe(due);
  });
});

describe('runBounceCheck: when the inbox is read', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['RECONCILE_BOUNCES off, an inbox wired', {}, true],
    ['RECONCILE_BOUNCES on, no inbox wired', ON, false],
  ])('%s: nothing is read, recorded or found gone', (_case, props, wired) => {
    const w = setUp([sent(1)], null, props);
    if (!wired) delete w.deps.bounceMail;
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    expect(w.inbox.queries).toEqual([]);
    expect(w.run.summary.bounceCheck).toBeUndefined();
    expect([...w.run.gone]).toEqual([]);
    expect(w.queue.row(2).error).toBe('');
    expect(w.incidents.raised).toEqual([]);
  });

  it('the first check looks back a day', () => {
    const w = setUp([]);
    runBounceCheck(w.run);
    expect(w.inbox.queries).toEqual([queryAfter(T0 - 24 * HOUR)]);
  });

  it('a later check reads from an hour before the last one', () => {
    const w = setUp([], { at: T0 - 30 * MINUTE, seen: [] });
    runBounceCheck(w.run);
    expect(w.inbox.queries).toEqual([queryAfter(T0 - 90 * MINUTE)]);
  });

  it('not before BOUNCE_CHECK_MINUTES after the last one: nothing read, nothing recorded', () => {
    const w = setUp([], { at: T0 - 29 * MINUTE, seen: [] });
    runBounceCheck(w.run);
    expect(w.inbox.queries).toEqual([]);
    expect(w.run.summary.bounceCheck).toBeUndefined();
    expect([...w.run.gone]).toEqual([]);
  });

  it('not once the run budget is spent', () => {
    const w = setUp([]);
    w.clock.time = w.run.deadline;
    runBounceCheck(w.run);
    expect(w.inbox.queries).toEqual([]);
    expect(w.run.summary.bounceCheck).toBeUndefined();
  });
});

describe('runBounceCheck: what a failure notice about a reply of ours does', () => {
  it('the SENT row gets BOUNCED in its error (status kept) with a Log line, the address is suppressed for this run and on the sheet, and the check is recorded', () => {
    const w = setUp([sent(1), sent(2)]);
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    const error = bouncedError('r1@example.com', 'n1');
    expect(w.queue.rows).toEqual([{ ...sent(1), rowNumber: 2, error, updatedAt: T0 }, { ...sent(2), rowNumber: 3 }]);
    expect(w.audit.entries).toEqual([{ at: T0, eventId: 'evt-1', submission: 'tf:Wr1tE5sy:tok-1', from: 'SENT', to: 'SENT', by: 'system', detail: error }]);
    expect(w.list.entries).toEqual([suppressedBy('r1@example.com')]);
    expect([...(w.run.suppressed ?? [])]).toEqual([['r1@example.com', suppressedBy('r1@example.com')]]);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n1'], bounced: [[T0 - HOUR, 1]] });
    expect(w.inbox.reads).toEqual(['n1']);
    expect(w.incidents.raised).toEqual([]);
    expect([...w.run.gone]).toEqual(['BOUNCE_CHECK_FAILED']);
  });

  it.each<[string, Partial<QueueRow>]>([
    ['already marked BOUNCED', { error: 'BOUNCED: r1@example.com: an earlier notice' }],
    ['moved on by a person (its mail went all the same)', { status: 'SKIPPED' }],
  ])('a row %s is not marked again; its address is still suppressed and the bounce counted', (_case, patch) => {
    const w = setUp([sent(1, patch)]);
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    expect(w.queue.writes).toEqual([]);
    expect(w.audit.entries).toEqual([]);
    expect(w.list.entries).toEqual([suppressedBy('r1@example.com')]);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n1'], bounced: [[T0 - HOUR, 1]] });
  });

  it('a row whose error only mentions BOUNCED later on is marked', () => {
    const w = setUp([sent(1, { error: 'note: not BOUNCED: yet' })]);
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    expect(w.queue.row(2).error).toBe(bouncedError('r1@example.com', 'n1'));
  });

  it('an address already on the Suppressed sheet is not added again (the sheet is not written), and the check is recorded', () => {
    const w = setUp([sent(1)]);
    const desk: SuppressedEntry = { address: 'R1+news@example.com', reason: 'asked to stop', addedBy: 'desk', addedAt: null };
    w.list.entries.push(desk);
    let adds = 0;
    w.list.add = () => {
      adds++;
    };
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    expect(adds).toBe(0);
    expect(w.queue.row(2).error).toBe(bouncedError('r1@example.com', 'n1'));
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n1'], bounced: [[T0 - HOUR, 1]] });
  });

  it('a Reference of ours whose row is gone suppresses the address, marks no row, and counts', () => {
    const w = setUp([sent(2)]);
    w.inbox.notices.push(notice('n1', 'gone@example.com', { ref: 'FQ-ZZZZZZ' }));
    runBounceCheck(w.run);
    expect(w.queue.writes).toEqual([]);
    expect(w.list.entries).toEqual([suppressedBy('gone@example.com')]);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n1'], bounced: [[T0 - HOUR, 1]] });
  });

  it('two notices for one mailbox in one check put it on the sheet once, in one write', () => {
    const w = setUp([sent(1)]);
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }), notice('n2', 'R1+x@example.com', { ref: 'FQ-ZZZZZZ' }));
    const added: SuppressedEntry[][] = [];
    w.list.add = (entries) => {
      added.push([...entries]);
    };
    runBounceCheck(w.run);
    expect(added).toEqual([[suppressedBy('r1+x@example.com')]]);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n2', 'n1'], bounced: [[T0 - HOUR, 2]] });
  });

  it.each<[string, BounceNotice]>([
    ['a delay notice', notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1', subject: 'Delivery Status Notification (Delay)', text: 'Action: delayed' })],
    ['a failure of mail formqueue did not send', notice('n1', 'stranger@example.net')],
  ])('%s changes nothing and is not counted, but is read only once', (_case, unrelated) => {
    const w = setUp([sent(1)]);
    w.inbox.notices.push(unrelated);
    let adds = 0;
    w.list.add = () => {
      adds++;
    };
    runBounceCheck(w.run);
    expect(w.queue.writes).toEqual([]);
    expect(adds).toBe(0);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n1'] });
  });
});

describe('runBounceCheck: what is read, and what is recorded for the next check', () => {
  it('a notice the last check read is not read again; ids no longer in the window are dropped; the tally is carried on', () => {
    const w = setUp([sent(1), sent(2)], { at: T0 - 30 * MINUTE, seen: ['old', 'out-of-window'], bounced: [[T0 - 30 * HOUR, 5], [T0 - 2 * HOUR, 1]] });
    w.inbox.notices.push(notice('old', 'r1@example.com', { ref: 'FQ-AAAAA1' }), notice('new', 'r2@example.com', { ref: 'FQ-AAAAA2' }));
    runBounceCheck(w.run);
    expect(w.inbox.reads).toEqual(['new']);
    expect(w.queue.rows.map((row) => row.error)).toEqual(['', bouncedError('r2@example.com', 'new')]);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['new', 'old'], bounced: [[T0 - 2 * HOUR, 1], [T0 - HOUR, 1]] });
  });

  it('reads at most 20 notices a check, in the order the inbox lists them; the rest wait for the next', () => {
    const w = setUp([]);
    const ids = Array.from({ length: 21 }, (_, i) => `n${i}`);
    w.inbox.notices.push(...ids.map((id) => notice(id, 'stranger@example.net')));
    runBounceCheck(w.run);
    const listed = [...ids].reverse();
    expect(w.inbox.reads).toEqual(listed.slice(0, 20));
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: listed.slice(0, 20) });
  });

  it('keeps at most 200 ids for the next check', () => {
    const ids = Array.from({ length: 201 }, (_, i) => `n${i}`);
    const w = setUp([], { at: T0 - 30 * MINUTE, seen: ids });
    w.inbox.notices.push(...ids.map((id) => notice(id, 'stranger@example.net')));
    runBounceCheck(w.run);
    expect(w.inbox.reads).toEqual([]);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ids.slice(0, 200) });
  });

  it('past 200 ids the oldest go, never the ones read now: the next check does not read a bounce again and count it twice', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `n${i}`);
    const notices = () => [...ids.map((id) => notice(id, 'stranger@example.net')), notice('new', 'r1@example.com')];
    const w = setUp([sent(1)], { at: T0 - 30 * MINUTE, seen: ids });
    w.inbox.notices.push(...notices());
    runBounceCheck(w.run);
    expect(w.inbox.reads).toEqual(['new']);
    const record = w.run.summary.bounceCheck;
    expect(record).toEqual({ at: T0, seen: ['new', ...ids.slice(0, 199)], bounced: [[T0 - HOUR, 1]] });
    // The next check, with the same 201 notices still in its window: the bounce is not read again and the tally stays
    // at one; only the oldest id, the one the cap let go, is read again (a stranger's notice: it counts nothing).
    const next = setUp([sent(1)], { ...(record as BounceCheckState), at: T0 - 30 * MINUTE });
    next.inbox.notices.push(...notices());
    runBounceCheck(next.run);
    expect(next.inbox.reads).toEqual(['n199']);
    expect(next.run.summary.bounceCheck?.bounced).toEqual([[T0 - HOUR, 1]]);
  });

  it('with no bounce now and none in the last day, the record carries no tally', () => {
    const w = setUp([], { at: T0 - 30 * MINUTE, seen: [], bounced: [[T0 - 30 * HOUR, 5]] });
    runBounceCheck(w.run);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: [] });
  });
});

describe('runBounceCheck: when Gmail or the Suppressed sheet fails', () => {
  const failed = (message: string) => ({
    code: 'BOUNCE_CHECK_FAILED',
    detail: `the inbox could not be searched for delivery-failure notices (${message}); it is tried again at the next run`,
    rows: [],
  });

  it('a failing search raises BOUNCE_CHECK_FAILED, changes nothing and records no check', () => {
    const w = setUp([sent(1)]);
    w.inbox.failWith = 'Request had insufficient authentication scopes.';
    runBounceCheck(w.run);
    expect(w.incidents.raised).toEqual([failed('Request had insufficient authentication scopes.')]);
    expect(w.run.summary.bounceCheck).toBeUndefined();
    expect([...w.run.gone]).toEqual([]);
    expect(w.queue.writes).toEqual([]);
  });

  it('a failing read of one notice does the same, even after other notices were read', () => {
    const w = setUp([sent(1)]);
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    w.inbox.list = (query) => {
      w.inbox.queries.push(query);
      return ['n1', 'vanished'];
    };
    runBounceCheck(w.run);
    expect(w.inbox.reads).toEqual(['n1', 'vanished']);
    expect(w.incidents.raised).toEqual([failed('Requested entity was not found.')]);
    expect(w.run.summary.bounceCheck).toBeUndefined();
    expect(w.queue.writes).toEqual([]);
    expect(w.list.entries).toEqual([]);
  });

  it('without a Suppressed sheet the row is still marked, CONFIG_MISSING is raised, and the check is not recorded (the next reads the notice again)', () => {
    const w = setUp([sent(1)]);
    const missing = 'The spreadsheet has no "Suppressed" sheet. Run formqueue → Set up / repair from the spreadsheet menu.';
    w.list.add = () => {
      throw codedError('CONFIG_MISSING', missing);
    };
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    expect(w.incidents.raised).toEqual([{ code: 'CONFIG_MISSING', detail: missing, rows: [] }]);
    expect(w.queue.row(2).error).toBe(bouncedError('r1@example.com', 'n1'));
    expect(w.run.summary.bounceCheck).toBeUndefined();
  });

  it('any other failure of the Suppressed sheet is thrown, before any row is marked', () => {
    const w = setUp([sent(1)]);
    w.list.add = () => {
      throw new Error('Service Spreadsheets timed out');
    };
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    expect(() => runBounceCheck(w.run)).toThrow('Service Spreadsheets timed out');
    expect(w.queue.writes).toEqual([]);
    expect(w.incidents.raised).toEqual([]);
  });

  it('with no Suppressed sheet wired at all, the addresses hold for this run and the check is recorded', () => {
    const w = setUp([sent(1)]);
    delete w.deps.suppression;
    w.inbox.notices.push(notice('n1', 'r1@example.com', { ref: 'FQ-AAAAA1' }));
    runBounceCheck(w.run);
    expect(w.queue.row(2).error).toBe(bouncedError('r1@example.com', 'n1'));
    expect([...(w.run.suppressed ?? []).keys()]).toEqual(['r1@example.com']);
    expect(w.run.summary.bounceCheck).toEqual({ at: T0, seen: ['n1'], bounced: [[T0 - HOUR, 1]] });
  });
});
