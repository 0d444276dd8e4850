// The on-edit guard's decisions: every staff move of docs/states.md, result edits, and multi-cell edits.
import { describe, expect, it } from 'vitest';
import { decideResultEdit, decideStatusEdit, decideUncheckedResultEdit, decideUncheckedStatusEdit, decideSystemColumnEdit, SYSTEM_MEMORY_COLUMNS } from '../../../src/core/staff/edit-guard';
import { STATUSES } from '../../../src/core/domain/queue/statuses';
import { repliedRow, STAFF, T0 } from '../fakes/rows';

/** docs/states.md#staff-moves: the only moves staff may make by hand. */
const ALLOWED: readonly [string, string][] = [
  ['AWAITING_APPROVAL', 'APPROVED'],
  ['FAILED', 'PENDING'],
  ['NEEDS_REVIEW', 'PENDING'],
  ['FAILED', 'SENT'],
  ['NEEDS_REVIEW', 'SENT'],
  ...['PENDING', 'GENERATING', 'READY', 'AWAITING_APPROVAL', 'APPROVED', 'SENDING', 'NEEDS_REVIEW', 'FAILED'].map(
    (from) => [from, 'SKIPPED'] as [string, string],
  ),
];

const isAllowed = (from: string, to: string) => ALLOWED.some(([f, t]) => f === from && t === to);
const everyPair = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as [string, string]));

describe('decideStatusEdit: every staff move of docs/states.md', () => {
  it.each(everyPair.filter(([from, to]) => isAllowed(from, to)))('%s → %s stands and is logged with who', (from, to) => {
    const decision = decideStatusEdit({ from, to, row: repliedRow(to), ...STAFF });
    expect(decision.kind).toBe('allowed');
    if (decision.kind !== 'allowed') return;
    expect(decision.row.status).toBe(to);
    expect(decision.row.updatedAt).toBe(T0);
    expect(decision.log).toMatchObject({ at: T0, eventId: 'ev-2', from, to, by: 'ana@example.org' });
  });

  it.each(everyPair.filter(([from, to]) => !isAllowed(from, to)))('%s → %s is put back with a note', (from, to) => {
    const decision = decideStatusEdit({ from, to, row: repliedRow(to), ...STAFF });
    expect(decision.kind).toBe('refused');
    if (decision.kind !== 'refused') return;
    expect(decision.putBack).toBe(from);
    expect(decision.note).toContain('ana@example.org');
    expect(decision.note.length).toBeGreaterThan(40);
    expect(decision.log).toMatchObject({ from, to: from, by: 'ana@example.org' });
    expect(decision.log.detail).toMatch(new RegExp(`^refused status edit to "${to}"`));
  });

  it('SENT → PENDING is refused because the reply was already mailed', () => {
    const decision = decideStatusEdit({ from: 'SENT', to: 'PENDING', row: repliedRow('PENDING', { sentAt: T0 - 1000 }), ...STAFF });
    expect(decision).toMatchObject({ kind: 'refused', putBack: 'SENT' });
    if (decision.kind === 'refused') expect(decision.note).toMatch(/already mailed/);
  });

  it.each([['sent it'], ['Aproved'], [''], ['=HYPERLINK("x")']])('a value that is no status (%j) is put back', (to) => {
    const decision = decideStatusEdit({ from: 'FAILED', to, row: repliedRow(to), ...STAFF });
    expect(decision).toMatchObject({ kind: 'refused', putBack: 'FAILED' });
  });

  it('a lower-case status is taken as the status', () => {
    const decision = decideStatusEdit({ from: 'AWAITING_APPROVAL', to: 'approved', row: repliedRow('approved'), ...STAFF });
    expect(decision.kind).toBe('allowed');
    if (decision.kind === 'allowed') expect(decision.row.status).toBe('APPROVED');
  });

  it('retyping the same status is no move; a different spelling is rewritten', () => {
    expect(decideStatusEdit({ from: 'READY', to: 'READY', row: repliedRow('READY'), ...STAFF })).toEqual({ kind: 'unchanged' });
    expect(decideStatusEdit({ from: 'READY', to: 'ready', row: repliedRow('ready'), ...STAFF })).toEqual({ kind: 'unchanged', rewrite: 'READY' });
  });

  it('a retry by hand resets attempts, back-off, claim and error, and logs the old error', () => {
    const failed = repliedRow('PENDING', { attempts: 5, nextAttemptAt: T0 + 1, claimedAt: T0 - 5, error: 'GEMINI_BLOCKED: SAFETY' });
    const decision = decideStatusEdit({ from: 'FAILED', to: 'PENDING', row: failed, ...STAFF });
    expect(decision.kind).toBe('allowed');
    if (decision.kind !== 'allowed') return;
    expect(decision.row).toMatchObject({ attempts: 0, nextAttemptAt: null, claimedAt: null, error: '' });
    expect(decision.log.detail).toContain('GEMINI_BLOCKED: SAFETY');
  });

  it('a retry of a row with sent_at is the person deciding a new reply goes out: sent_at is cleared, and the Log says a reply was mailed', () => {
    const decision = decideStatusEdit({ from: 'NEEDS_REVIEW', to: 'PENDING', row: repliedRow('PENDING', { sentAt: T0 - 60_000 }), ...STAFF });
    expect(decision).toMatchObject({ kind: 'allowed', row: { status: 'PENDING', sentAt: null } });
    if (decision.kind === 'allowed') expect(decision.log.detail).toContain('a reply was already mailed at');
  });

  it('marking sent by hand fills sent_at with now, or keeps a recorded send time', () => {
    const fresh = decideStatusEdit({ from: 'NEEDS_REVIEW', to: 'SENT', row: repliedRow('SENT'), ...STAFF });
    const kept = decideStatusEdit({ from: 'NEEDS_REVIEW', to: 'SENT', row: repliedRow('SENT', { sentAt: T0 - 99 }), ...STAFF });
    expect(fresh.kind === 'allowed' && fresh.row.sentAt).toBe(T0);
    expect(kept.kind === 'allowed' && kept.row.sentAt).toBe(T0 - 99);
    expect(fresh.kind === 'allowed' && fresh.log.detail).toBe(`marked sent by ana@example.org after checking by hand [ledger: sent_at=${new Date(T0).toISOString()}]`);
  });

  it('approving an empty reply is refused', () => {
    const decision = decideStatusEdit({ from: 'AWAITING_APPROVAL', to: 'APPROVED', row: repliedRow('APPROVED', { result: '  ' }), ...STAFF });
    expect(decision.kind).toBe('refused');
  });

  it('a status typed into a row without a submission is put back', () => {
    const decision = decideStatusEdit({ from: '', to: 'PENDING', row: repliedRow('PENDING', { eventId: '' }), ...STAFF });
    expect(decision).toMatchObject({ kind: 'refused', putBack: '' });
  });

  it('an editor Sheets does not name is logged as unknown staff', () => {
    const decision = decideStatusEdit({ from: 'FAILED', to: 'SKIPPED', row: repliedRow('SKIPPED'), user: '', now: T0 });
    expect(decision.kind === 'allowed' && decision.log.by).toBe('staff (unknown)');
  });
});

describe('decideResultEdit: result is editable only before a send is claimed', () => {
  it.each(STATUSES.map((status) => [status, status === 'AWAITING_APPROVAL' || status === 'READY']))('while %s: stands = %s', (status, stands) => {
    const decision = decideResultEdit({ from: 'old text', to: 'new text', row: repliedRow(status, { result: 'new text' }), ...STAFF });
    expect(decision.kind).toBe(stands ? 'allowed' : 'refused');
    if (decision.kind === 'refused') {
      expect(decision.putBack).toBe('old text');
      expect(decision.note).toContain(status);
    }
    if (decision.kind === 'allowed') {
      expect(decision.row.result).toBe('new text');
      expect(decision.log).toMatchObject({ from: status, to: status, by: 'ana@example.org' });
    }
  });

  it('an edit that leaves the text as it was does nothing', () => {
    expect(decideResultEdit({ from: 'same', to: 'same', row: repliedRow('SENT'), ...STAFF })).toEqual({ kind: 'unchanged' });
  });
});

describe('multi-cell edits (Sheets gives no previous values)', () => {
  it.each([
    ['SKIPPED', 'SKIPPED'],
    ['SENT', 'SENT'],
    ['FAILED', 'FAILED'],
    ['NEEDS_REVIEW', 'NEEDS_REVIEW'],
    ['APPROVED', 'NEEDS_REVIEW'],
    ['PENDING', 'NEEDS_REVIEW'],
    ['SENDING', 'NEEDS_REVIEW'],
    ['', 'NEEDS_REVIEW'],
    ['oops', 'NEEDS_REVIEW'],
  ])('a pasted %j leaves the row %s, with a note and a Log line', (to, status) => {
    const outcome = decideUncheckedStatusEdit(repliedRow(to), to, STAFF);
    expect(outcome.row.status).toBe(status);
    expect(outcome.log).toMatchObject({ from: '(unknown)', to: status, by: 'ana@example.org' });
    expect(outcome.note).toContain('ana@example.org');
    // A row that waits for a person says why on the row itself.
    if (status === 'NEEDS_REVIEW' && to !== 'NEEDS_REVIEW') expect(outcome.row.error).toMatch(/^STAFF_EDIT_UNCHECKED: multi-cell edit to /);
  });

  it('a pasted NEEDS_REVIEW or FAILED keeps a reason the row has, and gets one when it has none', () => {
    expect(decideUncheckedStatusEdit(repliedRow('FAILED', { error: 'MAIL_PERMANENT: bad address' }), 'FAILED', STAFF).row.error).toBe('MAIL_PERMANENT: bad address');
    expect(decideUncheckedStatusEdit(repliedRow('NEEDS_REVIEW'), 'NEEDS_REVIEW', STAFF).row.error).toMatch(/^STAFF_EDIT_UNCHECKED: multi-cell edit to NEEDS_REVIEW/);
    expect(decideUncheckedStatusEdit(repliedRow('SKIPPED'), 'SKIPPED', STAFF).row.error).toBe('');
  });

  it('pasted result text on an APPROVED row parks it; on a READY row it stands', () => {
    expect(decideUncheckedResultEdit(repliedRow('APPROVED'), STAFF).row).toMatchObject({ status: 'NEEDS_REVIEW', error: expect.stringMatching(/^STAFF_EDIT_UNCHECKED: result changed after approval/) });
    const ready = decideUncheckedResultEdit(repliedRow('READY'), STAFF);
    expect(ready.row.status).toBe('READY');
    expect(ready.note).toBeNull();
    expect(decideUncheckedResultEdit(repliedRow('SENT'), STAFF).row.status).toBe('SENT');
  });
});

describe('decideSystemColumnEdit: the columns that carry the system memory', () => {
  it.each(SYSTEM_MEMORY_COLUMNS)('a typed edit of %s is put back, with a note and a Log line', (header) => {
    const decision = decideSystemColumnEdit(header, 'FQ-7K2M9Q', repliedRow('SENT'), STAFF);
    expect(decision.kind).toBe('put-back');
    if (decision.kind !== 'put-back') return;
    expect(decision.note).toMatch(new RegExp(`^formqueue put back ${header} .*memory of this row`));
    expect(decision.log).toMatchObject({ from: 'SENT', to: 'SENT', by: 'ana@example.org' });
  });

  it('a time cell is put back as a time: Sheets gives its old value as a day serial', () => {
    const decision = decideSystemColumnEdit('sent_at', '45000.5', repliedRow('SENT'), STAFF);
    expect(decision.kind === 'put-back' && decision.value).toEqual(new Date(Date.UTC(2023, 2, 15, 12)));
    const iso = decideSystemColumnEdit('sent_at', '2026-11-30T10:00:00.000Z', repliedRow('SENT'), STAFF);
    expect(iso.kind === 'put-back' && iso.value).toEqual(new Date('2026-11-30T10:00:00.000Z'));
  });

  it('a paste (no old value) parks an unfinished row in NEEDS_REVIEW and only notes a finished one', () => {
    const parked = decideSystemColumnEdit('event_id', null, repliedRow('READY'), STAFF);
    expect(parked).toMatchObject({ kind: 'park', row: { status: 'NEEDS_REVIEW', error: expect.stringMatching(/^STAFF_EDIT_UNCHECKED: event_id was changed/) }, log: { from: 'READY', to: 'NEEDS_REVIEW' } });
    const finished = decideSystemColumnEdit('sent_at', null, repliedRow('SENT'), STAFF);
    expect(finished).toMatchObject({ kind: 'park', row: { status: 'SENT' }, log: { to: 'SENT' } });
  });
});
