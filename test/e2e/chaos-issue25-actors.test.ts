// The chaos actors of issue #25 (Typeform's own sender, a 404 window, the 15-minute webhook watch) in both readings of
// what the sender does with the web app's 302: each fires on the crafted schedule chaos-issue25-actors.json, the run
// keeps every invariant (every response Typeform stores answered once), and the webhook is disabled, seen, switched back on.
import { describe, expect, it } from 'vitest';
import { checkSchedule } from '../../bench/chaos-check.mjs';
import { runSchedule } from '../../bench/chaos-run.mjs';
import { recipientOf } from '../../harness/runtime.mjs';
import { startOfflineGemini } from '../../emulator/offline-gemini.mjs';
import issue25Actors from './chaos-issue25-actors.json';

/** The submissions the schedule gives Typeform's sender (its typeformSubmit and typeformOutage actions). */
const SENT_BY_TYPEFORM = [1, 2, 4, 5, 6];

describe('the actors of issue #25 in the runtime', () => {
  it.each(['fail', 'follow'] as const)('typeformRedirect=%s: Typeform\'s sender, a 404 window and the watch in a chaos schedule: 0 duplicate mails, 0 lost, the webhook disabled once and switched back on', async (mode) => {
    const gemini = await startOfflineGemini({ port: 0 });
    try {
      const observed = await runSchedule({ ...issue25Actors, worlds: { typeformRedirect: mode } }, { gemini });
      expect(observed.actors).toEqual(expect.arrayContaining(['typeform-submit', 'typeform-outage', 'typeform-disabled', 'typeform-watch', 'typeform-reenable']));
      const result = checkSchedule(observed);
      expect(result.violations).toEqual([]);
      expect(result).toMatchObject({ duplicateEmails: 0, lost: 0, secretsLeaked: 0 });
      for (const n of SENT_BY_TYPEFORM) expect(observed.outbox.filter((mail: any) => mail.to === recipientOf(n)), `replies to respondent ${n}`).toHaveLength(1);
      // The 404 of the window disabled the webhook once; the watch saw it (one incident mail, one recovery mail) and,
      // the deployer's TYPEFORM_WEBHOOK_REENABLE on, switched it back on once the web app answered again.
      expect(observed.typeform.disables).toHaveLength(1);
      expect(observed.typeform.webhooks[0].enabled).toBe(true);
      const incident = observed.outbox.map((mail: any) => String(mail.subject)).filter((subject: string) => subject.includes('Typeform webhook disabled'));
      expect(incident.filter((subject: string) => !/Resolved|Still/.test(subject))).toHaveLength(1);
      expect(incident.filter((subject: string) => subject.includes('Resolved'))).toHaveLength(1);
      // Submission 4 got the 404, submission 5 came while the webhook was off: neither reached doPost, both recovered
      // from Typeform's Responses API (by the watch's recovery or the daily check).
      const queue = observed.sheets.Queue;
      const eventIdOfToken = (n: number) => String(queue.rows.find((row: unknown[]) => row[queue.header.indexOf('response_token')] === `tok${String(n).padStart(29, '0')}`)?.[queue.header.indexOf('event_id')] ?? '');
      expect(eventIdOfToken(4)).toMatch(/^reconciled:/);
      expect(eventIdOfToken(5)).toMatch(/^reconciled:/);
      // fail: every 302 is a failed attempt, retried with the same event_id; follow: only the 404 fails.
      if (mode === 'fail') {
        expect(observed.typeform.totals.delivered).toBe(0);
        expect(observed.typeform.totals.attempts).toBeGreaterThan(SENT_BY_TYPEFORM.length);
      } else {
        expect(observed.typeform.totals.delivered).toBeGreaterThan(0);
        expect(observed.typeform.totals.failed).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await gemini.close();
    }
  }, 240_000);

  it('the checker counts a response Typeform stores, sent by its sender, that no row holds as lost', () => {
    const observed = {
      answers: [{ n: 7, id: 'ev7', storedByTypeform: true, answer: null }],
      outbox: [],
      sheets: { Queue: { header: ['status', 'event_id', 'response_token'], rows: [] } },
      executions: [],
      spill: [],
    };
    expect(checkSchedule(observed)).toMatchObject({ lost: 1 });
  });
});
