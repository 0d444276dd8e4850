// Config send_hours end to end: a form with a 08:00–20:00 window mails nothing at night and everything in the morning,
// each reply exactly once; overnight idle ticks stay skipped by the gate (at most 2 service calls), as without a window;
// a form's Config time_zone moves its window to the clock there.
import { describe, expect, it } from 'vitest';
import { CONFIG_HEADERS } from '../../src/core/domain/config/form-config';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DIRTY = 'FQ_DIRTY';
const SEND_HOURS_CELL = `${String.fromCharCode(65 + CONFIG_HEADERS.indexOf('send_hours'))}2`;
const TIME_ZONE_CELL = `${String.fromCharCode(65 + CONFIG_HEADERS.indexOf('time_zone'))}2`;

describe('send windows in the local runtime (script time zone Etc/UTC)', () => {
  let rt: Runtime;

  const respondentMails = (): any[] => rt.host.outbox.filter((mail: any) => /^r\d@example\.com$/.test(mail.to));
  /** Moves the runtime's clock to the next `hour`:00 UTC. */
  const advanceTo = (hour: number) => {
    const now = rt.host.now();
    const next = new Date(now);
    next.setUTCHours(hour, 0, 0, 0);
    if (next.getTime() <= now) next.setUTCDate(next.getUTCDate() + 1);
    rt.host.advanceClock(next.getTime() - now);
  };

  it('a form with 08:00-20:00 mails nothing at night and everything in the morning, each exactly once; idle night ticks cost at most 2 calls', { timeout: 180_000 }, async () => {
    rt = await freshRuntime();
    expect(rt.sheet('Config').header).toContain('send_hours');
    await rt.host.edit({ sheet: 'Config', a1: SEND_HOURS_CELL, value: '08:00-20:00', user: 'owner@example.com' });
    advanceTo(2);
    for (const n of [1, 2, 3]) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    const night = await rt.run('processQueue');
    expect(night.status).toBe('ok');
    // Generated at night, not mailed: each waits with the time it may go.
    expect(rt.queue().map((row) => row.status)).toEqual(['READY', 'READY', 'READY']);
    const morning = new Date(rt.host.now());
    morning.setUTCHours(8, 0, 0, 0);
    for (const row of rt.queue()) expect(row.error).toBe(`SEND_WINDOW: outside the form's send_hours 08:00-20:00 (Etc/UTC); not mailed before ${morning.toISOString()}`);
    expect(respondentMails()).toHaveLength(0);

    // The minute ticks between safety sweeps are skipped by the gate, as on any idle night.
    for (let minute = 1; minute <= 14; minute++) {
      rt.host.advanceClock(MINUTE);
      const idle = await rt.run('processQueue');
      expect(idle.value).toBe('Skipped: nothing new, no retry due.');
      expect(idle.serviceCalls).toBeLessThanOrEqual(2);
    }
    // The 15-minute safety sweeps of the night run and mail nothing.
    while (rt.host.now() + 15 * MINUTE < morning.getTime()) {
      rt.host.advanceClock(15 * MINUTE);
      const sweep = await rt.run('processQueue');
      expect(sweep.status).toBe('ok');
    }
    expect(respondentMails()).toHaveLength(0);

    // 08:00: the gate wakes for the window (FQ_NEXT_DUE_AT), with no new delivery or edit, and every reply goes.
    advanceTo(8);
    const opened = await rt.run('processQueue');
    expect(String(opened.value)).not.toMatch(/^Skipped/);
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT']);
    expect(respondentMails().map((mail) => mail.to).sort()).toEqual(['r1@example.com', 'r2@example.com', 'r3@example.com']);
    expect(respondentMails().every((mail) => Date.parse(mail.sentAt) >= morning.getTime())).toBe(true);

    // Exactly once: the day goes on and nothing is mailed again.
    for (const hours of [1, 5, 13]) {
      rt.host.advanceClock(hours * HOUR);
      rt.host.properties.set(DIRTY, String(rt.host.now()));
      await rt.run('processQueue');
    }
    expect(respondentMails()).toHaveLength(3);
  });

  it('a form whose time_zone is America/New_York mails by the clock there: nothing at 10:00 UTC (05:00 or 06:00 there), everything at 08:00 there, once', { timeout: 180_000 }, async () => {
    rt = await freshRuntime();
    expect(rt.sheet('Config').header).toContain('time_zone');
    await rt.host.edit({ sheet: 'Config', a1: SEND_HOURS_CELL, value: '08:00-20:00', user: 'owner@example.com' });
    await rt.host.edit({ sheet: 'Config', a1: TIME_ZONE_CELL, value: 'America/New_York', user: 'owner@example.com' });
    advanceTo(10);
    for (const n of [1, 2]) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    expect((await rt.run('processQueue')).status).toBe('ok');
    // Inside the script's window (UTC) but outside the form's own: it waits, named in its zone.
    expect(rt.queue().map((row) => row.status)).toEqual(['READY', 'READY']);
    // 08:00 in New York is 13:00 UTC in winter and 12:00 UTC in summer (the runtime's clock follows the real date).
    const newYorkHour = Number(new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(new Date(rt.host.now())));
    const opensHour = 10 + 8 - newYorkHour;
    const opens = new Date(rt.host.now());
    opens.setUTCHours(opensHour, 0, 0, 0);
    for (const row of rt.queue()) expect(row.error).toBe(`SEND_WINDOW: outside the form's send_hours 08:00-20:00 (America/New_York); not mailed before ${opens.toISOString()}`);
    expect(respondentMails()).toHaveLength(0);

    advanceTo(opensHour);
    const opened = await rt.run('processQueue');
    expect(String(opened.value)).not.toMatch(/^Skipped/);
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT']);
    rt.host.advanceClock(HOUR);
    rt.host.properties.set(DIRTY, String(rt.host.now()));
    await rt.run('processQueue');
    expect(respondentMails().map((mail) => mail.to).sort()).toEqual(['r1@example.com', 'r2@example.com']);
  });
});
