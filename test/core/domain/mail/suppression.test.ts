// The suppression list in the mail guard: a suppressed recipient is never mailed, the row goes to a person with why.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../../src/core/processing/process-run';
import type { QueueRow } from '../../../../src/core/domain/queue/queue-row';
import { bareAddress, suppressedDetail, suppressionIndex, suppressionOf, type SuppressedEntry } from '../../../../src/core/domain/mail/suppression';
import { MemorySuppression, pendingRow, T0, world } from '../../memory-ports';

const start = { startedAt: T0 };
const line = (address: string, patch: Partial<SuppressedEntry> = {}): SuppressedEntry => ({ address, reason: 'asked us to stop', addedBy: 'desk@example.org', addedAt: T0 - 1000, ...patch });
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina, well done.', eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, attempts: 1, ...patch });

describe('the suppression list', () => {
  it.each([
    ['r1@example.com', 'R1@Example.com', true],
    ['r1@example.com', 'r1+news@example.com', true],
    ['Ann <r1@example.com>', 'r1@example.com', true],
    ['mailto:r1@example.com', ' r1@example.com ', true],
    ['r1@example.com', 'r1@example.org', false],
    ['not an address', 'r1@example.com', false],
  ])('line %j suppresses %j: %s', (address, recipient, suppressed) => {
    expect(suppressionOf(recipient, suppressionIndex([line(address)])) !== null).toBe(suppressed);
  });

  it('a cell with no @ holds no address', () => {
    expect(bareAddress('call me')).toBe('');
  });

  it.each([
    ['Ann <A@Example.org>', 'a@example.org'],
    ['  a@example.org \t', 'a@example.org'],
    [' mailto:a@example.org', 'a@example.org'],
    ['MAILTO:A@example.org', 'a@example.org'],
    ['Ann < mailto:a@example.org >', 'a@example.org'],
    ['no-mailto:a@example.org', 'no-mailto:a@example.org'],
  ])('bareAddress(%j) is %j: trimmed, lower case, only a leading mailto: taken off', (cell, bare) => {
    expect(bareAddress(cell)).toBe(bare);
  });

  it('the first line of a mailbox wins (its reason is the one staff see); a line with no address is left out', () => {
    const first = line('Ann <A@example.org>', { reason: 'asked us to stop' });
    const later = line('a+news@example.org', { reason: 'bounced: Address not found', addedBy: 'bounce' });
    const index = suppressionIndex([line('see the notes'), first, later]);
    expect([...index]).toEqual([['a@example.org', first]]);
    expect(suppressionOf('a+news@example.org', index)).toBe(first);
  });

  it.each(['', '   ', 'call me'])('a recipient cell with no address (%j) is suppressed by nothing, even by an index holding a blank key', (recipient) => {
    const index = new Map([['', line('')]]);
    expect(suppressionOf(recipient, index)).toBeNull();
  });
});

describe('suppressedDetail: the row error says why the reply is held back and what a person can do', () => {
  const held = (added: string) =>
    `r1@example.com is on the Suppressed sheet (${added}), so no reply is mailed to it. ` +
    'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply';

  it('names the address, who added it and why', () => {
    expect(suppressedDetail('r1@example.com', line('r1@example.com'))).toBe(
      'r1@example.com is on the Suppressed sheet (added by desk@example.org: asked us to stop), so no reply is mailed to it. ' +
        'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply',
    );
  });

  it.each<[string, Partial<SuppressedEntry>, string]>([
    ['reason and name are trimmed', { reason: '  bounced: Address not found \n', addedBy: ' bounce ' }, 'added by bounce: bounced: Address not found'],
    ['an empty reason reads "no reason given"', { reason: '' }, 'added by desk@example.org: no reason given'],
    ['a reason of only spaces is none', { reason: '   ' }, 'added by desk@example.org: no reason given'],
    ['no name: no "by"', { addedBy: '' }, 'added: asked us to stop'],
    ['a name of only spaces is none', { addedBy: '  ' }, 'added: asked us to stop'],
    ['neither', { reason: '', addedBy: '' }, 'added: no reason given'],
  ])('%s: (%j) → (%s)', (_case, patch, added) => {
    expect(suppressedDetail('r1@example.com', line('r1@example.com', patch))).toBe(held(added));
  });
});

describe('runProcessing: suppressed recipients', () => {
  it('a READY row to a suppressed address is not mailed: NEEDS_REVIEW with SUPPRESSED and the list\'s reason; the others go', () => {
    const w = world([ready(1), ready(2, { status: 'APPROVED' }), ready(3)]);
    w.deps.suppression = new MemorySuppression([line('r1@example.com'), line('R2+x@example.com', { reason: 'bounced: Address not found', addedBy: 'bounce' })]);
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r3@example.com']);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['NEEDS_REVIEW', 'NEEDS_REVIEW', 'SENT']);
    expect(w.queue.row(2).error).toMatch(/^SUPPRESSED: r1@example.com is on the Suppressed sheet \(added by desk@example.org: asked us to stop\)/);
    expect(w.queue.row(3).error).toContain('added by bounce: bounced: Address not found');
    expect(summary.needsReview).toBe(2);
    // Parked before any claim: a suppressed row is never put in SENDING.
    expect(w.queue.writes.flat().some((row) => row.eventId !== 'evt-3' && row.status === 'SENDING')).toBe(false);
  });

  it('the list is read once per run however many rows are sent, and not at all by a run that sends nothing', () => {
    const list = new MemorySuppression([line('nobody@example.com')]);
    const w = world([1, 2, 3, 4, 5, 6, 7].map((n) => ready(n)));
    w.deps.suppression = list;
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(7);
    expect(list.reads).toBe(1);
    const idle = world([ready(1, { status: 'SENT', sentAt: T0 - 1000 })]);
    const untouched = new MemorySuppression();
    idle.deps.suppression = untouched;
    runProcessing(idle.deps, start);
    expect(untouched.reads).toBe(0);
  });

  it('a recipient edited to a suppressed address after the claim is not mailed: the read-back asks the guard again', () => {
    const w = world([ready(1)]);
    w.deps.suppression = new MemorySuppression([line('blocked@example.com')]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { recipient: 'blocked@example.com' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', sentAt: null });
    expect(w.queue.row(2).error).toMatch(/^SUPPRESSED: blocked@example.com/);
  });
});
