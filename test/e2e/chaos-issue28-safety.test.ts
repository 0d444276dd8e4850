// The chaos actors of issue #28's mail safety (a send window set at the start and moved by staff, the clock across its
// edges, a model talked into an outside link, another address and the respondent's instruction, a new-recipient
// ceiling of 2 an hour): each fires on the crafted schedule chaos-issue28-safety.json and the run keeps every invariant;
// the checker's new rules (no steered reply without a person, no mail outside the window, no more new recipients than
// the ceiling) each catch their breach.
import { describe, expect, it } from 'vitest';
import { checkSchedule } from '../../bench/chaos-check.mjs';
import { INJECTED_EVENTS } from '../../bench/chaos-schedule.mjs';
import { runSchedule } from '../../bench/chaos-run.mjs';
import { eventIdOf, recipientOf } from '../../harness/runtime.mjs';
import { startOfflineGemini } from '../../emulator/offline-gemini.mjs';
import issue28Safety from './chaos-issue28-safety.json';

const HOUR = 3_600_000;
const hh = (hour: number) => `${String(((hour % 24) + 24) % 24).padStart(2, '0')}:00`;

/**
 * The schedule with its window fixed from the runtime's start time (real time): 2 to 8 hours from now in UTC, so the
 * first run is before it and the 3 hours the clock moves bring it inside; staff then move the same hours to Tokyo.
 */
function scheduleFromNow() {
  const hour = new Date().getUTCHours();
  const hours = `${hh(hour + 2)}-${hh(hour + 8)}`;
  const schedule = structuredClone(issue28Safety) as any;
  schedule.safety.window.hours = hours;
  for (const group of schedule.groups) for (const action of group.actions) if (action.t === 'staffSendHours') action.hours = hours;
  return schedule;
}

describe('the mail-safety actors of issue #28 in the runtime', () => {
  it('a send window, injected replies and a 2-an-hour ceiling in a chaos schedule: 0 duplicate mails, 0 lost, steered replies mailed once after a person approved them, nothing outside the window', { timeout: 180_000 }, async () => {
    const gemini = await startOfflineGemini({ port: 0 });
    try {
      const observed = await runSchedule(scheduleFromNow(), { gemini });
      expect(observed.actors).toEqual(expect.arrayContaining([
        'send-window', 'send-window-held', 'clock-hours', 'staff-send-hours',
        'injected-link', 'injected-address', 'injected-obey', 'gemini-talked-into', 'reply-policy-held', 'staff-approve',
        'recipient-ceiling-tripped',
      ]));
      const result = checkSchedule(observed);
      expect(result.violations).toEqual([]);
      expect(result).toMatchObject({ duplicateEmails: 0, lost: 0, secretsLeaked: 0 });
      // Every respondent answered once; the three steered replies went (after staff approved them), each carrying what
      // the injection asked for, and staff's approval is on record for each.
      for (const n of [1, 2, 3, ...INJECTED_EVENTS]) expect(observed.outbox.filter((mail: any) => mail.to === recipientOf(n)), `replies to respondent ${n}`).toHaveLength(1);
      for (const n of INJECTED_EVENTS) {
        expect(observed.outbox.find((mail: any) => mail.to === recipientOf(n))?.body).toContain('evil.example');
        expect(observed.staffTouched).toContain(eventIdOf(n));
      }
      // The ceiling: one incident for staff, not one per held row.
      const ceiling = observed.outbox.filter((mail: any) => String(mail.subject).includes('Many new recipients at once') && !/Resolved|Still/.test(String(mail.subject)));
      expect(ceiling).toHaveLength(1);
    } finally {
      await gemini.close();
    }
  });

  // Found by the ceiling rule: a run killed right after a send left its row SENDING without sent_at, the next run did not
  // count that address, and a third stranger was mailed in the hour.
  it('a run killed right after a send under a ceiling of 2 an hour: the address that may have been mailed takes room, no third stranger in the hour', { timeout: 120_000 }, async () => {
    const gemini = await startOfflineGemini({ port: 0 });
    try {
      const observed = await runSchedule({
        approval: false,
        safety: { window: null, ceiling: { perHour: 2, perDay: null } },
        groups: [
          { faults: [], actions: [1, 2, 3, 4, 5].map((n) => ({ t: 'deliver', n })) },
          { faults: [{ target: 'mail', crashAfterSend: 1 }], actions: [{ t: 'process' }] },
          { faults: [], actions: [{ t: 'process' }] },
          { faults: [], actions: [{ t: 'process' }] },
        ],
      }, { gemini });
      expect(observed.faultsFired.join(' ')).toMatch(/killed right after a send/);
      const result = checkSchedule(observed);
      expect(result.violations).toEqual([]);
      expect(result).toMatchObject({ duplicateEmails: 0, lost: 0 });
    } finally {
      await gemini.close();
    }
  });

  /** A respondent mail as the outbox holds it: subject and body carry the row's mail_ref. */
  const mail = (to: string, sentAt: string, ref: string, text = 'Dear respondent') => ({ to, subject: `Your reply [${ref}]`, body: `${text}\n${ref}`, sentAt, executionId: 'x1' });
  const sheets = (rows: unknown[][]) => ({ Queue: { header: ['status', 'event_id', 'response_token', 'sent_at', 'mail_ref', 'error'], rows } });

  it('the checker counts a steered reply mailed without a person as a violation', () => {
    const observed = {
      answers: [{ n: 1, answer: { ok: true, queued: true } }],
      outbox: [mail(recipientOf(1), '2026-01-01T10:00:00Z', 'fq-1', 'confirm at http://login.evil.example/verify')],
      sheets: sheets([['SENT', eventIdOf(1), '', '2026-01-01T10:00:00Z', 'fq-1', '']]),
      executions: [],
      spill: [],
      staffTouched: [],
    };
    expect(checkSchedule(observed).violations.join('\n')).toMatch(/steered by an injection \(evil\.example\) that no person approved/);
    expect(checkSchedule({ ...observed, staffTouched: [eventIdOf(1)] }).violations).toEqual([]);
  });

  it('the checker counts a reply mailed outside the send window in effect as a violation, and allows the window a run may still have read', () => {
    const at = Date.parse('2026-01-01T03:00:00Z');
    const observed = {
      answers: [{ n: 1, answer: { ok: true, queued: true } }],
      outbox: [mail(recipientOf(1), new Date(at).toISOString(), 'fq-1')],
      sheets: sheets([['SENT', eventIdOf(1), '', new Date(at).toISOString(), 'fq-1', '']]),
      executions: [],
      spill: [],
      windows: [{ at: at - 5 * HOUR, hours: '08:00-20:00', zone: '' }],
    };
    expect(checkSchedule(observed).violations.join('\n')).toMatch(/outside the send window \(08:00-20:00 Etc\/UTC\)/);
    // 03:00 UTC is 12:00 in Tokyo: inside the same hours there.
    expect(checkSchedule({ ...observed, windows: [{ at: at - 5 * HOUR, hours: '08:00-20:00', zone: 'Asia/Tokyo' }] }).violations).toEqual([]);
    // A window set a minute before the send: the run may have read the one before it (any time), so it is allowed.
    expect(checkSchedule({ ...observed, windows: [{ at: at - 5 * HOUR, hours: '', zone: '' }, { at: at - 60_000, hours: '08:00-20:00', zone: '' }] }).violations).toEqual([]);
  });

  it('the checker counts more new recipients in a rolling hour than the ceiling as a violation', () => {
    const at = Date.parse('2026-01-01T10:00:00Z');
    const sentAt = (n: number, minutes: number) => new Date(at + minutes * 60_000).toISOString();
    const observed = {
      answers: [1, 2, 3].map((n) => ({ n, answer: { ok: true, queued: true } })),
      outbox: [1, 2, 3].map((n) => mail(recipientOf(n), sentAt(n, n * 20), `fq-${n}`)),
      sheets: sheets([1, 2, 3].map((n) => ['SENT', eventIdOf(n), '', sentAt(n, n * 20), `fq-${n}`, ''])),
      executions: [],
      spill: [],
      ceiling: { perHour: 2, perDay: null },
    };
    expect(checkSchedule(observed).violations.join('\n')).toMatch(/3 new recipients were mailed in the rolling hour .* over the ceiling of 2/);
    expect(checkSchedule({ ...observed, ceiling: { perHour: 3, perDay: null } }).violations).toEqual([]);
  });
});
