// A READY or APPROVED row with an empty result has no reply to mail: a person is asked, instead of a wait that never ends.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import { pendingRow, T0, world } from '../memory-ports';

describe('a sendable row without a reply', () => {
  it.each(['READY', 'APPROVED'])('%s with an empty result (pasted while the on-edit trigger failed) goes to NEEDS_REVIEW with NO_REPLY, never mailed', (status) => {
    const w = world([pendingRow({ eventId: 'evt-blank', status, result: '' })]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^NO_REPLY: the row is .* but its result is empty/);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(summary.needsReview).toBe(1);
  });

  it('a READY row with its reply is mailed as before', () => {
    const w = world([pendingRow({ eventId: 'evt-reply', status: 'READY', result: 'Dear Mina' })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('SENT');
  });
});
