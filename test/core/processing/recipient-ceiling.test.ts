// The new-recipient ceiling: the rule, table-tested, and the send step that holds rows past it and raises one incident.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import { ceilingVerdict, firstMailedAt } from '../../../src/core/processing/recipient-ceiling';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0, world } from '../memory-ports';

const HOUR = 3_600_000;
const limits = { perHour: 2, perDay: 3 };

describe('ceilingVerdict', () => {
  const first = firstMailedAt([
    { recipient: 'Old@Example.com', sentAt: T0 - 3 * HOUR },
    { recipient: 'old@example.com', sentAt: T0 - 2 * 24 * HOUR },
    { recipient: 'recent@example.com', sentAt: T0 - 10 * 60_000 },
    { recipient: 'unsent@example.com', sentAt: null },
  ]);

  it.each<[string, string, string[], string]>([
    ['an address mailed before is not new, whatever the counts', 'old@example.com', ['a@x.example', 'b@x.example', 'c@x.example'], 'known'],
    ['an address this run already counted is not counted twice', 'a@x.example', ['a@x.example', 'b@x.example'], 'known'],
    ['a new address with room in the hour and the day', 'new@example.com', [], 'room'],
    ['a new address once the hour holds the ceiling (one mailed, one planned)', 'new@example.com', ['a@x.example'], 'hour'],
    ['an address never mailed (a row not sent yet does not count)', 'unsent@example.com', [], 'room'],
  ])('%s', (_name, mailbox, planned, verdict) => {
    expect(ceilingVerdict(first, new Set(planned), mailbox, T0, limits)).toBe(verdict);
  });

  it('an address whose mail may have gone without its sent_at (a run killed right after the send) takes room in the hour: SENDING from its claim, NEEDS_REVIEW with a mail_ref from its last update', () => {
    const maybe = firstMailedAt([
      { recipient: 'sent@x.example', sentAt: T0 - 10 * 60_000 },
      { recipient: 'crashed@x.example', sentAt: null, status: 'SENDING', claimedAt: T0 - 5 * 60_000, mailRef: 'FQ-AAAAAA', updatedAt: T0 - 5 * 60_000 },
      { recipient: 'swept@x.example', sentAt: null, status: 'NEEDS_REVIEW', claimedAt: null, mailRef: 'FQ-BBBBBB', updatedAt: T0 - 2 * HOUR },
      { recipient: 'never@x.example', sentAt: null, status: 'NEEDS_REVIEW', claimedAt: null, mailRef: '', updatedAt: T0 - 60_000 },
    ]);
    expect([...maybe.keys()].sort()).toEqual(['crashed@x.example', 'sent@x.example', 'swept@x.example']);
    expect(maybe.get('crashed@x.example')).toBe(T0 - 5 * 60_000);
    expect(ceilingVerdict(maybe, new Set(), 'new@example.com', T0, limits)).toBe('hour');
    expect(ceilingVerdict(maybe, new Set(), 'crashed@x.example', T0, limits)).toBe('known');
  });

  it('an address counts from its first mail: one mailed two days ago and again ten minutes ago is not new in the hour', () => {
    const again = firstMailedAt([
      { recipient: 'a@x.example', sentAt: T0 - 10 * 60_000 },
      { recipient: 'A@x.example', sentAt: T0 - 2 * 24 * HOUR },
      { recipient: 'a+later@x.example', sentAt: T0 - 5 * 60_000 },
      { recipient: 'b@x.example', sentAt: T0 - 20 * 60_000 },
    ]);
    expect(again.get('a@x.example')).toBe(T0 - 2 * 24 * HOUR);
    expect(ceilingVerdict(again, new Set(), 'new@example.com', T0, limits)).toBe('room');
  });

  it('a mail exactly an hour (a day) ago has left the rolling hour (day)', () => {
    const edge = firstMailedAt([
      { recipient: 'a@x.example', sentAt: T0 - HOUR },
      { recipient: 'b@x.example', sentAt: T0 - 10 * 60_000 },
    ]);
    expect(ceilingVerdict(edge, new Set(), 'new@example.com', T0, limits)).toBe('room');
    const dayEdge = firstMailedAt([
      { recipient: 'a@x.example', sentAt: T0 - 24 * HOUR },
      { recipient: 'b@x.example', sentAt: T0 - 3 * HOUR },
      { recipient: 'c@x.example', sentAt: T0 - 2 * HOUR },
    ]);
    expect(ceilingVerdict(dayEdge, new Set(), 'new@example.com', T0, limits)).toBe('room');
  });

  it.each<[string, Parameters<typeof firstMailedAt>[0][number], number | undefined]>([
    ['SENDING with no claim time: from its last update', { recipient: 'x@x.example', sentAt: null, status: 'SENDING', claimedAt: null, updatedAt: T0 - 60_000 }, T0 - 60_000],
    ['SENDING with neither time: not counted', { recipient: 'x@x.example', sentAt: null, status: 'SENDING', claimedAt: null, updatedAt: undefined }, undefined],
    ['NEEDS_REVIEW with a mail_ref and no update time: from its claim', { recipient: 'x@x.example', sentAt: null, status: 'NEEDS_REVIEW', mailRef: 'FQ-AAAAAA', claimedAt: T0 - 60_000 }, T0 - 60_000],
    ['NEEDS_REVIEW with a mail_ref and neither time: not counted', { recipient: 'x@x.example', sentAt: null, status: 'NEEDS_REVIEW', mailRef: 'FQ-AAAAAA' }, undefined],
    ['NEEDS_REVIEW with no mail_ref cell read: not counted', { recipient: 'x@x.example', sentAt: null, status: 'NEEDS_REVIEW', updatedAt: T0 - 60_000 }, undefined],
    ['READY with a claim time (a stale cell): not counted', { recipient: 'x@x.example', sentAt: null, status: 'READY', claimedAt: T0 - 60_000, updatedAt: T0 - 60_000 }, undefined],
  ])('a row that may have been mailed: %s', (_name, row, at) => {
    expect(firstMailedAt([row]).get('x@x.example')).toBe(at);
  });

  it('a new address once the rolling day holds the ceiling, though the hour has room', () => {
    const day = firstMailedAt([
      { recipient: 'a@x.example', sentAt: T0 - 5 * HOUR },
      { recipient: 'b@x.example', sentAt: T0 - 4 * HOUR },
      { recipient: 'c@x.example', sentAt: T0 - 3 * HOUR },
    ]);
    expect(ceilingVerdict(day, new Set(), 'd@x.example', T0, limits)).toBe('day');
    expect(ceilingVerdict(day, new Set(), 'd@x.example', T0 + 20 * HOUR, limits)).toBe('room');
  });
});

describe('the send step under the ceiling', () => {
  const strangers = (n: number): QueueRow[] =>
    Array.from({ length: n }, (_v, i) =>
      pendingRow({ eventId: `e-${i}`, responseToken: `t-${i}`, recipient: `stranger${i}@example.com`, status: 'READY', result: 'Dear friend, thank you.', mailRef: `FQ-AAA${String(i).padStart(3, '0')}` }),
    );

  it('mails at most the hourly ceiling of new addresses; the rest stay READY and one incident names them', () => {
    const w = world(strangers(6), { MAX_NEW_RECIPIENTS_PER_HOUR: '2', MAX_NEW_RECIPIENTS_PER_DAY: '3' });
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['stranger0@example.com', 'stranger1@example.com']);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'READY', 'READY', 'READY', 'READY']);
    expect(w.incidents.codes()).toEqual(['NEW_RECIPIENT_CEILING']);
    expect(w.incidents.raised.filter((r) => r.code === 'NEW_RECIPIENT_CEILING')[0].rows).toEqual([4, 5, 6, 7]);
  });

  it('an hour later one more goes (the day ceiling), and nothing more until the day rolls on', () => {
    const w = world(strangers(6), { MAX_NEW_RECIPIENTS_PER_HOUR: '2', MAX_NEW_RECIPIENTS_PER_DAY: '3' });
    runProcessing(w.deps, { startedAt: T0 });
    w.clock.advance(HOUR + 1);
    runProcessing(w.deps, { startedAt: T0 + HOUR + 1 });
    expect(w.mailer.outbox).toHaveLength(3);
    w.clock.advance(HOUR);
    runProcessing(w.deps, { startedAt: T0 + 2 * HOUR + 1 });
    expect(w.mailer.outbox).toHaveLength(3);
  });

  it('a reply to an address mailed before is not held by the ceiling', () => {
    const sent = pendingRow({ eventId: 'old', responseToken: 'old', recipient: 'stranger3@example.com', status: 'SENT', sentAt: T0 - 3 * HOUR, mailRef: 'FQ-OLD000' });
    const w = world([sent, ...strangers(4)], { MAX_NEW_RECIPIENTS_PER_HOUR: '1' });
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['stranger0@example.com', 'stranger3@example.com']);
  });
});
