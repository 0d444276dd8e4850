// runProcessing's housekeeping: duplicate collapse, stale sweep, outages and bugs ending the run cleanly, the Log.
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../src/core/domain/failures/errors';
import { findDuplicates } from '../../../src/core/processing/duplicates';
import { runProcessing } from '../../../src/core/processing/process-run';
import { isStale, staleDeadline } from '../../../src/core/processing/stale-sweep';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
const MINUTE = 60_000;
const row = (eventId: string, responseToken: string, patch: Partial<QueueRow> = {}) => pendingRow({ eventId, responseToken, ...patch });

describe('duplicate collapse', () => {
  it.each<[string, QueueRow[], string[], string]>([
    ['the same event_id on an earlier row', [row('e1', 't1'), row('e1', 't2')], ['SENT', 'DUPLICATE'], 'row 2'],
    ['the same response token on an earlier row', [row('e1', 't1'), row('e2', 't1')], ['SENT', 'DUPLICATE'], 'row 2'],
    ['an earlier row that already FAILED', [row('e1', 't1', { status: 'FAILED' }), row('e1', 't1')], ['FAILED', 'DUPLICATE'], 'row 2'],
    ['a later row that was already SENT', [row('e1', 't1'), row('e1', 't1', { status: 'SENT', sentAt: T0 })], ['DUPLICATE', 'SENT'], 'row 3'],
    ['an earlier row still GENERATING', [row('e1', 't1', { status: 'GENERATING', claimedAt: T0 }), row('e1', 't1')], ['GENERATING', 'DUPLICATE'], 'row 2'],
    ['a READY redelivery of a SKIPPED row', [row('e1', 't1', { status: 'SKIPPED' }), row('e1', 't1', { status: 'READY' })], ['SKIPPED', 'DUPLICATE'], 'row 2'],
  ])('a row with %s becomes DUPLICATE naming the row that keeps it, and only that row is answered', (_name, rows, statuses, original) => {
    expect(findDuplicates(numbered(rows), () => new Set()).map((finding) => finding.original)).toEqual([expect.stringMatching(`^${original} `)]);
    const w = world(rows);
    const summary = runProcessing(w.deps, start);
    expect(w.queue.rows.map((r) => r.status)).toEqual(statuses);
    expect(w.queue.rows.find((r) => r.status === 'DUPLICATE')?.error).toContain(`DUPLICATE: the same submission is already in ${original} `);
    expect(summary.duplicates).toBe(1);
    const sentBefore = rows.filter((r) => r.status === 'SENT').length;
    expect(w.mailer.outbox).toHaveLength(statuses.filter((s) => s === 'SENT').length - sentBefore);
  });

  it('a row whose key is already archived becomes DUPLICATE and is never generated or mailed', () => {
    const w = world([row('e1', 't1')]);
    w.queue.archived.add('t1');
    runProcessing(w.deps, start);
    expect(w.queue.row(2).status).toBe('DUPLICATE');
    expect(w.queue.row(2).error).toMatch(/^DUPLICATE: the same submission is already in the Archive sheet; not generated or mailed/);
    expect(w.gemini.calls).toHaveLength(0);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a row with sent_at is never collapsed: it is the record of a mail that went out', () => {
    const rows = [row('e1', 't1', { status: 'FAILED' }), row('e1', 't1', { status: 'READY', sentAt: T0 - MINUTE })];
    expect(findDuplicates(numbered(rows), () => new Set())).toEqual([]);
  });

  it('Archive keys are read only when some row could be collapsed', () => {
    let reads = 0;
    findDuplicates(numbered([row('e1', 't1', { status: 'SENT' })]), () => {
      reads++;
      return new Set();
    });
    expect(reads).toBe(0);
  });
});

describe('stale sweep', () => {
  it.each<[string, Partial<QueueRow>, string, number]>([
    ['GENERATING claimed 11 min ago goes back to PENDING, attempts kept', { status: 'GENERATING', claimedAt: T0 - 11 * MINUTE, attempts: 2 }, 'PENDING', 2],
    ['GENERATING claimed 5 min ago is left alone', { status: 'GENERATING', claimedAt: T0 - 5 * MINUTE, attempts: 2 }, 'GENERATING', 2],
    ['SENDING claimed 16 min ago becomes NEEDS_REVIEW', { status: 'SENDING', claimedAt: T0 - 16 * MINUTE, attempts: 1 }, 'NEEDS_REVIEW', 1],
    ['SENDING claimed 5 min ago is left alone', { status: 'SENDING', claimedAt: T0 - 5 * MINUTE, attempts: 1 }, 'SENDING', 1],
    ['SENDING without a claim time becomes NEEDS_REVIEW', { status: 'SENDING', claimedAt: null, attempts: 1 }, 'NEEDS_REVIEW', 1],
  ])('%s', (_name, patch, status, attempts) => {
    const w = world([pendingRow({ result: 'r', mailRef: 'FQ-AAAAAA', ...patch })]);
    // A run whose budget is already spent does only the sweep, so the swept state is what we see.
    const summary = runProcessing(w.deps, { startedAt: T0 - 300_000 });
    expect(summary.stoppedBecause).toBe('budget');
    expect(w.queue.row(2).status).toBe(status);
    expect(w.queue.row(2).attempts).toBe(attempts);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a stale SENDING row is never resent, and its error says so', () => {
    const w = world([pendingRow({ status: 'SENDING', claimedAt: T0 - 20 * MINUTE, result: 'r', mailRef: 'FQ-AAAAAA' })]);
    runProcessing(w.deps, start);
    w.clock.advance(60 * MINUTE);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).error).toMatch(/^STALE_SENDING: sending started 20 min ago/);
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
  });

  it('a claim still in flight sets nextDueAt to when it turns stale', () => {
    const w = world([pendingRow({ status: 'SENDING', claimedAt: T0 - 5 * MINUTE })]);
    expect(runProcessing(w.deps, start).nextDueAt).toBe(T0 + 10 * MINUTE);
  });

  it('a claim without claimed_at seen after the sweep wakes the next tick at once, as the sweep counts it stale already', () => {
    // Another writer claims the row between this run's read and its re-read, leaving no claim time.
    const w = world([pendingRow({ status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' })]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { status: 'SENDING', claimedAt: null });
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(summary.nextDueAt).toBe(T0);
  });

  it.each<[string, Partial<QueueRow>, number | null]>([
    ['GENERATING claimed at T0', { status: 'GENERATING', claimedAt: T0 }, T0 + 10 * MINUTE],
    ['SENDING claimed at T0', { status: 'SENDING', claimedAt: T0 }, T0 + 15 * MINUTE],
    ['GENERATING without a claim time', { status: 'GENERATING', claimedAt: null }, -Infinity],
    ['SENDING without a claim time', { status: 'SENDING', claimedAt: null }, -Infinity],
    ['READY (no claim to go stale)', { status: 'READY', claimedAt: T0 }, null],
  ])('staleDeadline: %s', (_name, patch, deadline) => {
    const limits = { staleGeneratingMinutes: 10, staleSendingMinutes: 15 };
    expect(staleDeadline(pendingRow(patch), limits)).toBe(deadline);
    expect(isStale(pendingRow(patch), T0 + 12 * MINUTE, limits)).toBe(deadline !== null && deadline <= T0 + 12 * MINUTE);
  });
});

describe('errors end the run cleanly', () => {
  it('a Sheets outage raises SHEETS_UNAVAILABLE, writes nothing and does not throw', () => {
    const w = world([pendingRow()]);
    w.queue.failOn = { method: 'readAll', error: new Error('Service Spreadsheets failed while accessing document with id 1x.') };
    const summary = runProcessing(w.deps, start);
    expect(summary).toMatchObject({ stoppedBecause: 'sheets-unavailable', nextDueAt: T0 });
    expect(w.incidents.codes()).toEqual(['SHEETS_UNAVAILABLE']);
    expect(w.queue.writes).toHaveLength(0);
  });

  it('a spill drain failing with SHEETS_UNAVAILABLE ends the run the same way', () => {
    const w = world([pendingRow()]);
    w.deps.drainSpill = () => {
      throw codedError('SHEETS_UNAVAILABLE', 'Queue could not be opened');
    };
    expect(runProcessing(w.deps, start).stoppedBecause).toBe('sheets-unavailable');
    expect(w.gemini.calls).toHaveLength(0);
  });

  it('an outage while writing outcomes leaves claims to the stale sweep, never half-written rows', () => {
    const w = world([pendingRow(), pendingRow({ eventId: 'b', responseToken: 'b' })]);
    w.gemini.onCall = () => {
      w.queue.failOn = { method: 'writeRows', error: new Error('Error code INTERNAL') };
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('sheets-unavailable');
    expect(w.queue.rows.map((r) => [r.status, r.result])).toEqual([
      ['GENERATING', ''],
      ['GENERATING', ''],
    ]);
  });

  it('an unexpected exception raises CODE_BUG with its stack and leaves rows untouched', () => {
    const w = world([pendingRow()]);
    w.config.readForms = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'prompt')");
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('code-bug');
    expect(w.incidents.raised[0].code).toBe('CODE_BUG');
    expect(w.incidents.raised[0].detail).toMatch(/^processQueue: TypeError: Cannot read properties/);
    expect(w.queue.writes).toHaveLength(0);
  });

  it('a missing sheet (CONFIG_MISSING) is a configuration incident naming the fix, not a code bug', () => {
    const w = world([pendingRow()]);
    w.config.readForms = () => {
      throw codedError('CONFIG_MISSING', 'The spreadsheet has no "Config" sheet. Run formqueue → Set up / repair from the spreadsheet menu.');
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('config-missing');
    expect(w.incidents.codes()).toEqual(['CONFIG_MISSING']);
    expect(w.incidents.raised[0].detail).toContain('Set up / repair');
    expect(w.queue.writes).toHaveLength(0);
  });

  it('a successful read clears SHEETS_UNAVAILABLE', () => {
    const w = world([]);
    runProcessing(w.deps, start);
    expect(w.incidents.cleared).toEqual(expect.arrayContaining(['SHEETS_UNAVAILABLE']));
  });
});

describe('the Log', () => {
  it('every move is logged by "system", one append per commit: a reply\'s verdict goes with its send claim, a batch\'s outcomes with the next claims', () => {
    const w = world([
      row('e1', 't1'),
      row('e1', 't1'),
      pendingRow({ eventId: 'g', responseToken: 'g', status: 'GENERATING', claimedAt: T0 - 30 * MINUTE }),
    ]);
    runProcessing(w.deps, start);
    const batches = w.audit.batches.map((batch) => batch.map((e) => `${e.eventId}:${e.from}>${e.to}`));
    expect(batches).toEqual([
      ['e1:PENDING>DUPLICATE'],
      ['g:GENERATING>PENDING'],
      ['e1:PENDING>GENERATING', 'g:PENDING>GENERATING'],
      // The verdicts are held for the next commit, the send claims of the same rows: one write, the claim's lines
      // still in the Log before any mail goes.
      ['e1:GENERATING>READY', 'e1:READY>SENDING', 'g:GENERATING>READY', 'g:READY>SENDING'],
      // Each mail's "about to send" line, its own append right before the mail.
      ['e1:SENDING>SENDING'],
      ['g:SENDING>SENDING'],
      // The outcomes wait for the next commit; with nothing left to claim, the run's end writes them.
      ['e1:SENDING>SENT', 'g:SENDING>SENT'],
    ]);
    expect(w.audit.entries.every((entry) => entry.by === 'system' && entry.at === T0)).toBe(true);
  });
});

/** Rows numbered as the memory Queue numbers them, for calling the pure finders directly. */
function numbered(rows: QueueRow[]): QueueRow[] {
  return rows.map((r, i) => ({ ...r, rowNumber: i + 2 }));
}
