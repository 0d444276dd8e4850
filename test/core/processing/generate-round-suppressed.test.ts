// A PENDING row whose recipient is on the Suppressed sheet goes to a person before generation: no Gemini call, the
// same SUPPRESSED reason the send step gives; the send step's own check stays for an address suppressed after the reply.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { SuppressedEntry } from '../../../src/core/domain/mail/suppression';
import { formConfig, MemorySuppression, pendingRow, T0, world } from '../memory-ports';

const line = (address: string, reason = 'asked us to stop', addedBy = 'desk@example.org'): SuppressedEntry => ({ address, reason, addedBy, addedAt: T0 - 60_000 });
const pending = (n: number, recipient: string, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient, ...patch });

function setup(rows: QueueRow[], entries: SuppressedEntry[]) {
  const w = world(rows);
  const list = new MemorySuppression(entries);
  w.deps.suppression = list;
  return { w, list };
}

describe('generation: a suppressed recipient costs no Gemini call', () => {
  it.each([
    ['the same address', 'ann@example.org', 'ann@example.org'],
    ['another case and a +tag (one mailbox)', 'Ann+forms@Example.ORG', 'ann@example.org'],
    ['a display name on the sheet', 'ann@example.org', 'Ann <ann@example.org>'],
  ])('%s: the row goes to NEEDS_REVIEW with SUPPRESSED, unwritten, and Gemini is not asked for it', (_case, recipient, listed) => {
    const { w } = setup([pending(1, recipient)], [line(listed)]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.gemini.calls).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', result: '', attempts: 0, claimedAt: null });
    expect(w.queue.row(2).error).toBe(
      `SUPPRESSED: ${recipient} is on the Suppressed sheet (added by desk@example.org: asked us to stop), so no reply is mailed to it. ` +
        'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply',
    );
    expect(summary).toMatchObject({ needsReview: 1, generated: 0, rounds: 0 });
    expect(w.mailer.outbox).toHaveLength(0);
    // The Log says where it stopped: before generation, no Gemini call.
    expect(w.audit.entries.map((entry) => [entry.from, entry.to, entry.by])).toEqual([['PENDING', 'NEEDS_REVIEW', 'system']]);
    expect(w.audit.entries[0].detail).toMatch(/^not generated \(no Gemini call\): SUPPRESSED: /);
  });

  it('other rows of the round are generated and mailed; the suppressed one does not take a place in the round', () => {
    const rows = [pending(1, 'ann@example.org'), pending(2, 'bo@example.org'), pending(3, 'cy@example.org'), pending(4, 'di@example.org'), pending(5, 'ed@example.org')];
    const { w, list } = setup(rows, [line('ann@example.org')]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    // GEMINI_CONCURRENCY is 4: the four others go in one call.
    expect(w.gemini.calls.map((call) => call.length)).toEqual([4]);
    expect(w.mailer.outbox.map((mail) => mail.to).sort()).toEqual(['bo@example.org', 'cy@example.org', 'di@example.org', 'ed@example.org']);
    expect(summary).toMatchObject({ needsReview: 1, generated: 4, sent: 4 });
    // The sheet is read once in the run, for generation and sending alike.
    expect(list.reads).toBe(1);
  });

  it('no Suppressed sheet (no SuppressionList) suppresses nothing', () => {
    const w = world([pending(1, 'ann@example.org')]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.gemini.calls).toHaveLength(1);
    expect(w.queue.row(2).status).toBe('SENT');
  });

  it('a row staff moved since the run read it keeps the staff move (compare-and-set), and nothing is generated for it', () => {
    const { w } = setup([pending(1, 'ann@example.org')], [line('ann@example.org')]);
    w.queue.beforeWriteRows = (_rows, queue) => {
      queue.beforeWriteRows = null;
      queue.rows[0] = { ...queue.rows[0], status: 'SKIPPED' };
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('SKIPPED');
    expect(w.gemini.calls).toEqual([]);
  });

  it('an address suppressed after the reply was written is still stopped at the send step (the mail guard keeps its check)', () => {
    const w = world([pending(1, 'ann@example.org')], {}, [formConfig({ approvalRequired: true })]);
    const list = new MemorySuppression([]);
    w.deps.suppression = list;
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('AWAITING_APPROVAL');
    // A person approves the reply; meanwhile the address bounced for another reply and is on the sheet now.
    w.queue.rows[0] = { ...w.queue.rows[0], status: 'APPROVED' };
    list.entries.push(line('ann@example.org', 'bounced: Address not found', 'bounce'));
    w.clock.time = T0 + 60_000;
    runProcessing(w.deps, { startedAt: w.clock.time });
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^SUPPRESSED: ann@example.org is on the Suppressed sheet \(added by bounce: bounced: Address not found\)/);
    expect(w.queue.row(2).result).not.toBe('');
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.gemini.calls).toHaveLength(1);
  });
});
