// The send step's window: read in the form's Config time_zone (else the script's), a zone that is not one holds the
// form's rows naming the value, and a claimed row is checked again right before its mail.
import { describe, expect, it } from 'vitest';
import { HALT_RECHECK_MS, runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, pendingRow, T0, world } from '../memory-ports';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina', eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, attempts: 1, ...patch });

describe('send windows in the form\'s time zone', () => {
  // T0 is 2026-11-20 10:00 UTC: 11:00 in Berlin, 05:00 in New York, 19:00 in Tokyo, 23:00 in Auckland (daylight saving).
  it.each([
    ['no time_zone: the script\'s zone (UTC here)', '', null],
    ['Europe/Berlin, 11:00 there', 'Europe/Berlin', null],
    ['Asia/Tokyo, 19:00 there', 'Asia/Tokyo', null],
    ['America/New_York, 05:00 there: waits until 08:00 there', 'America/New_York', T0 + 3 * HOUR],
    ['Pacific/Auckland, 23:00 there: waits until 08:00 there the next morning', 'Pacific/Auckland', T0 + 9 * HOUR],
  ])('08:00-20:00 in %s', (_name, zone, opensAt) => {
    const w = world([ready(1)], {}, [formConfig({ sendHours: '08:00-20:00', timeZone: zone })]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    if (opensAt === null) {
      expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r1@example.com']);
      expect(w.queue.row(2).status).toBe('SENT');
      return;
    }
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY' });
    expect(w.queue.row(2).error).toBe(`SEND_WINDOW: outside the form's send_hours 08:00-20:00 (${zone}); not mailed before ${new Date(opensAt).toISOString()}`);
    expect(summary.nextDueAt).toBe(opensAt);
    // At the opening it goes, once.
    w.clock.time = opensAt;
    runProcessing(w.deps, { startedAt: opensAt });
    runProcessing(w.deps, { startedAt: opensAt });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a form row with an empty time_zone takes the * row\'s, as every other Config cell', () => {
    const w = world([ready(1, { formId: 'F1' })], {}, [formConfig({ formId: '*', timeZone: 'America/New_York' }), formConfig({ formId: 'F1', sendHours: '08:00-20:00', timeZone: '' })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).error).toMatch(/\(America\/New_York\); not mailed before 2026-11-20T13:00:00\.000Z$/);
  });

  it.each(['Mars/Olympus_Mons', '+02:00', 'UTC+2', 'Berlin time'])('time_zone %j holds the form\'s rows with CONFIG_INVALID naming the value', (zone) => {
    const w = world([ready(1)], {}, [formConfig({ sendHours: '08:00-20:00', timeZone: zone })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('READY');
    expect(w.queue.row(2).error).toContain(`CONFIG_INVALID: Config time_zone of form Wr1tE5sy is "${zone}", which is not a time zone name`);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
  });

  it.each(['America/New_York', 'Berlin time'])('a time_zone without send_hours changes nothing, even one that is no zone (%j): the form mails at any time', (zone) => {
    const w = world([ready(1)], {}, [formConfig({ timeZone: zone })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('rows held by their window count as deferred, once each', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ sendHours: '08:00-20:00', timeZone: 'America/New_York' })]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(summary.deferred).toBe(2);
  });

  it('a form whose send_hours cannot be read names its problem once in the incident, however many rows it holds, and the gate looks again after the usual pause', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ sendHours: '9 to 5' })]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    const raised = w.incidents.raised.filter((incident) => incident.code === 'TEMPLATE_INVALID');
    expect(raised.map((incident) => incident.detail.split('\n').length)).toEqual([1]);
    expect(summary.nextDueAt).toBe(T0 + HALT_RECHECK_MS);
  });

  it.each([
    ['send_hours', { sendHours: '9 to 5' }],
    ['time_zone', { sendHours: '08:00-20:00', timeZone: 'Berlin time' }],
  ])('the incident of a %s that cannot be read names the rows it holds, so the triage mail can say who waits', (_cell, config) => {
    const w = world([ready(1), ready(2)], {}, [formConfig(config)]);
    runProcessing(w.deps, { startedAt: T0 });
    const raised = w.incidents.raised.filter((incident) => incident.code === 'TEMPLATE_INVALID');
    expect(raised.map((incident) => [...incident.rows].sort())).toEqual([[2, 3]]);
  });
});

describe('the window checked again between claim and mail', () => {
  /** Each mail takes a minute: the batch claimed at 10:00 reaches its second row at 10:01. */
  const slowMailer = (w: ReturnType<typeof world>) => {
    w.mailer.failWith = () => {
      w.clock.time += MINUTE;
      return undefined;
    };
  };

  it.each([
    ['READY', 'READY'],
    ['APPROVED', 'APPROVED'],
  ])('rows claimed from %s inside a window that closes before their turn go back to %s unmailed, with the time they may go', (from, back) => {
    const w = world([ready(1, { status: from }), ready(2, { status: from }), ready(3, { status: from })], {}, [formConfig({ sendHours: '09:00-10:01' })]);
    slowMailer(w);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r1@example.com']);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', back, back]);
    const note = "SEND_WINDOW: outside the form's send_hours 09:00-10:01 (Etc/UTC); not mailed before 2026-11-21T09:00:00.000Z";
    expect([w.queue.row(3).error, w.queue.row(4).error]).toEqual([note, note]);
    expect(w.queue.rows.map((row) => row.claimedAt)).toEqual([null, null, null]);
    // The Log says why: claimed, then back without a mail.
    const lines = w.audit.batches.flat().filter((entry) => entry.eventId === 'evt-2');
    expect(lines.map((entry) => `${entry.from}→${entry.to}`)).toEqual([`${from}→SENDING`, `SENDING→${back}`]);
    expect(lines[1].detail).toBe(`not mailed: ${note}`);
    expect(summary.sent).toBe(1);
    expect(summary.deferred).toBe(2);
    // The tick gate sleeps until the window opens again.
    expect(summary.nextDueAt).toBe(Date.parse('2026-11-21T09:00:00.000Z'));
  });

  it('a window that stays open mails the whole batch', () => {
    const w = world([ready(1), ready(2), ready(3)], {}, [formConfig({ sendHours: '09:00-10:05' })]);
    slowMailer(w);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(3);
  });

});
