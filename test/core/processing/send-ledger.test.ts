// The Log is the record of claimed sends, independent of the row's cells: a submission ever claimed is not mailed again without a person.
import { describe, expect, it } from 'vitest';
import { standingSendClaim } from '../../../src/core/mail-guard';
import type { LogEntry } from '../../../src/core/ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import { pendingRow, T0, world } from '../memory-ports';

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
  ])('%s → %s', (_name, history, stands) => {
    expect(standingSendClaim(history) !== null).toBe(stands);
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

  it('the Log is looked up once per run for every row the run may mail, not once per send', () => {
    const rows = [1, 2, 3, 4, 5, 6, 7].map((n) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, status: n <= 3 ? 'READY' : 'PENDING', result: n <= 3 ? 'Dear Mina' : '' }));
    const w = world(rows);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(7);
    expect(w.audit.lookups).toEqual([rows.map((row) => row.eventId)]);
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
