// What staff read when the Typeform check recovered submissions: the incident's mail and the daily summary's line, exactly.
import { describe, expect, it } from 'vitest';
import type { IncidentCode } from '../../../src/core/domain/failures/codes';
import { recoveredDetail, type TypeformCheckRecord } from '../../../src/core/reconcile/check-record';
import { responseWindow } from '../../../src/core/reconcile/typeform-window';
import { planDailySummary } from '../../../src/core/triage/daily-summary';
import { computeHealth } from '../../../src/core/triage/health';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { FakeClock, MemoryProperties } from '../memory-ports';
import { HOUR, queueRow, T0 } from '../fakes/rows';
import { SPREADSHEET_URL, runOnce, testSettings } from './fakes';

/** A check an hour before T0 that recovered 3 submissions and named the first two. */
const check: TypeformCheckRecord = {
  at: T0 - HOUR, ...responseWindow(T0 - HOUR), recovered: 3, tokens: ['a1b2c3', 'd4e5f6'], inRejected: 0, inRejectedTokens: [], disabled: [], errors: [], complete: true,
};
const waiting = [queueRow('AWAITING_APPROVAL', { rowNumber: 2, eventId: 'reconciled:a1b2c3' }), queueRow('AWAITING_APPROVAL', { rowNumber: 3, eventId: 'reconciled:d4e5f6' }), queueRow('AWAITING_APPROVAL', { rowNumber: 4, eventId: 'reconciled:g7h8i9' })];

describe('SUBMISSIONS_RECOVERED, in words', () => {
  it('the detail says how many, from which window, where they wait and the first tokens', () => {
    expect(recoveredDetail(check)).toBe(`3 submission(s) of ${check.since}–${check.until} UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens a1b2c3, d4e5f6, …)`);
    expect(recoveredDetail({ ...check, recovered: 2 })).toBe(`2 submission(s) of ${check.since}–${check.until} UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens a1b2c3, d4e5f6)`);
  });

  it('the incident mail, subject and body, line by line', () => {
    const props = new MemoryProperties();
    const { sent } = runOnce(props, T0, (book) => book.raise('SUBMISSIONS_RECOVERED', recoveredDetail(check)), { rows: waiting });
    expect(sent.map((mail) => mail.kind)).toEqual(['first']);
    const mail = sent[0].mail;
    expect(mail.subject).toMatchInlineSnapshot(`"[formqueue] Missed submissions recovered — 3 awaiting approval, 0 waiting"`);
    expect(mail.body.split('\n')).toMatchInlineSnapshot(`
      [
        "What happened: Typeform holds submissions whose webhook never became a row (Google refused the call, Typeform gave up, a token was wrong); the Typeform check added them to Queue. (3 submission(s) of 2025-05-30T09:00:00–2025-05-31T21:00:00 UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens a1b2c3, d4e5f6, …))",
        "Respondents affected: Yes. 3 rows wait in AWAITING_APPROVAL: those respondents get no reply until staff approve them.",
        "Queue: PENDING 0, GENERATING 0, READY 0, AWAITING_APPROVAL 3, APPROVED 0, SENDING 0, SENT 0, NEEDS_REVIEW 0, FAILED 0, SKIPPED 0, DUPLICATE 0, TEST 0",
        "Oldest PENDING: none",
        "Rows that need a person: 0",
        "Next step: Open Queue and filter event_id starting with "reconciled:": each waits in AWAITING_APPROVAL with its reply written; set APPROVED to mail it, or SKIPPED if it was already answered another way.",
        "Repeats fold into this incident: at most one reminder every 1 h, and one mail when it clears.",
        "",
        "Details",
        "-------",
        "First seen: 2025-06-01 10:00 UTC",
        "Last seen: 2025-06-01 10:00 UTC (0 s ago)",
        "Seen: 1 time in 1 run",
        "Affected rows: none named",
        "",
        "For the person who set this up",
        "------------------------------",
        "Code: SUBMISSIONS_RECOVERED (class: needs a person)",
        "Last error:",
        "3 submission(s) of 2025-05-30T09:00:00–2025-05-31T21:00:00 UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens a1b2c3, d4e5f6, …)",
        "",
      ]
    `);
  });

  // Recovered rows wait for staff, not for formqueue: their respondents are affected until staff approve them.
  it.each<[string, ReturnType<typeof queueRow>[], string, string]>([
    ['one recovered row left, a PENDING row as well', [waiting[0], queueRow('PENDING', { rowNumber: 5, eventId: 'ev-5', receivedAt: T0 - 10 * 60_000 })],
      '1 awaiting approval, 1 waiting',
      'Respondents affected: Yes. 1 row waits in AWAITING_APPROVAL: those respondents get no reply until staff approve it; and 1 respondent is waiting for a reply (PENDING 1; the oldest has waited 10 min); they get it once this clears.'],
    ['every recovered row approved and sent', [queueRow('SENT', { rowNumber: 2, eventId: 'reconciled:a1b2c3' })],
      '0 waiting, no user impact',
      'Respondents affected: No. No row is waiting for a reply, so no respondent is affected: 0 PENDING, nothing else waiting.'],
  ])('the impact, %s', (_what, rows, subject, impactLine) => {
    const { sent } = runOnce(new MemoryProperties(), T0, (book) => book.raise('SUBMISSIONS_RECOVERED', recoveredDetail(check)), { rows });
    expect(sent[0].mail.subject).toBe(`[formqueue] Missed submissions recovered — ${subject}`);
    expect(sent[0].mail.body.split('\n')[1]).toBe(impactLine);
  });

  // The subject names rows awaiting approval only for an incident whose rows await it, and only when some do.
  it.each<[string, IncidentCode, ReturnType<typeof queueRow>[], string]>([
    ['SUBMISSIONS_RECOVERED with no recovered row left but a PENDING one: the waiting row, not "0 awaiting approval"', 'SUBMISSIONS_RECOVERED',
      [queueRow('SENT', { rowNumber: 2, eventId: 'reconciled:a1b2c3' }), queueRow('PENDING', { rowNumber: 5, eventId: 'ev-5', receivedAt: T0 - 10 * 60_000 })],
      'Missed submissions recovered — 1 waiting, oldest 10 min'],
    ['an incident whose rows do not await approval, with rows awaiting it: the waiting rows only', 'SHEETS_UNAVAILABLE',
      [waiting[0], queueRow('PENDING', { rowNumber: 5, eventId: 'ev-5', receivedAt: T0 - 10 * 60_000 })],
      'Sheets unavailable — 1 waiting, oldest 10 min'],
  ])('the subject, %s', (_what, code, rows, subject) => {
    const { sent } = runOnce(new MemoryProperties(), T0, (book) => book.raise(code, 'detail'), { rows });
    expect(sent[0].mail.subject).toBe(`[formqueue] ${subject}`);
  });

  it('the daily summary line says what was recovered', () => {
    const props = new MemoryProperties();
    runOnce(props, T0 - HOUR, (book) => book.raise('SUBMISSIONS_RECOVERED', recoveredDetail(check)), { rows: waiting });
    const book = new IncidentBook(props, new FakeClock(T0));
    const summary = planDailySummary({
      dateKey: '2025-06-01', lastSentDateKey: '2025-05-31', health: computeHealth(waiting, T0, SPREADSHEET_URL, 0), incidents: book.all(),
      history: book.recentHistory(), now: T0, settings: testSettings({ DAILY_SUMMARY: 'true' }), remainingMailQuota: 100,
    });
    const line = summary?.body.split('\n').find((text) => text.startsWith('Missed submissions recovered'));
    expect(summary?.body).toContain('\nCode: SUBMISSIONS_RECOVERED (Missed submissions recovered)\n');
    expect(line).toBe(`Missed submissions recovered: open since 2025-06-01 09:00 UTC, seen 1 time: 3 submission(s) of ${check.since}–${check.until} UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens a1b2c3, d4e5f6, …)`);
  });
});
