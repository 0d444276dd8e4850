// runProcessing with Config send_hours: outside the window a reply waits (status kept, "not before" note, nothing read
// for it), the tick gate sleeps until the window opens, and inside it the reply goes once.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, MemorySuppression, pendingRow, T0, world } from '../memory-ports';

const HOUR = 3_600_000;
// T0 is 10:00 UTC: a window of 12:00-20:00 is closed then and opens two hours later.
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina', eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, attempts: 1, ...patch });

describe('runProcessing: send windows', () => {
  it('outside the window a READY row keeps its status with a "not before" note, is not claimed, and nextDueAt is the opening', () => {
    const w = world([ready(1), ready(2, { status: 'APPROVED' })], {}, [formConfig({ sendHours: '12:00-20:00' })]);
    const list = new MemorySuppression();
    w.deps.suppression = list;
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'APPROVED']);
    expect(w.queue.row(2).error).toBe("SEND_WINDOW: outside the form's send_hours 12:00-20:00 (Etc/UTC); not mailed before 2026-11-20T12:00:00.000Z");
    expect(summary.nextDueAt).toBe(T0 + 2 * HOUR);
    // Nothing is read for a row that cannot go: no send ledger lookup, no Suppressed sheet.
    expect(w.audit.lookups).toEqual([]);
    expect(list.reads).toBe(0);
  });

  it('a second run in the night writes nothing (the note is the same), and at the opening the row is mailed once', () => {
    const w = world([ready(1)], {}, [formConfig({ sendHours: '12:00-20:00' })]);
    runProcessing(w.deps, { startedAt: T0 });
    const writes = w.queue.writes.length;
    w.clock.time = T0 + HOUR;
    runProcessing(w.deps, { startedAt: w.clock.time });
    expect(w.queue.writes.length).toBe(writes);
    w.clock.time = T0 + 2 * HOUR;
    runProcessing(w.deps, { startedAt: w.clock.time });
    runProcessing(w.deps, { startedAt: w.clock.time });
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', error: '' });
  });

  it('only the form with a window waits; PENDING rows are generated at night all the same', () => {
    const w = world(
      [ready(1, { formId: 'Night' }), ready(2, { formId: 'Any' }), pendingRow({ formId: 'Night', eventId: 'evt-3', responseToken: 'tok-3' })],
      {},
      [formConfig({ formId: 'Night', sendHours: '12:00-20:00' }), formConfig({ formId: 'Any' })],
    );
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r2@example.com']);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'SENT', 'READY']);
  });

  it('a send_hours staff cannot mean holds the form\'s rows with CONFIG_INVALID and raises TEMPLATE_INVALID naming it', () => {
    const w = world([ready(1)], {}, [formConfig({ sendHours: '9 to 5' })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY' });
    expect(w.queue.row(2).error).toMatch(/^CONFIG_INVALID: Config send_hours of form .* is "9 to 5"/);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
  });
});
