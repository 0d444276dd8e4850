import { describe, expect, it } from 'vitest';
import { planDailySummary } from '../../../src/core/triage/daily-summary';
import { MISSED_DELIVERIES_UNRECOVERABLE } from '../../../src/core/domain/typeform/missed-deliveries';
import type { DailySummaryInput } from '../../../src/core/triage/daily-summary';
import { computeHealth } from '../../../src/core/triage/health';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { TRIAGE_MAIL_RESERVE } from '../../../src/core/triage/triage-mail';
import type { Incident } from '../../../src/core/triage/incident-record';
import { API_KEY, SPREADSHEET_URL, needsRow, runOnce, testSettings } from './fakes';
import { FakeClock, MemoryProperties } from '../memory-ports';
import { MINUTE, queueRow, T0 } from '../fakes/rows';

function input(overrides: Partial<DailySummaryInput> = {}): DailySummaryInput {
  return {
    dateKey: '2025-06-01',
    lastSentDateKey: '2025-05-31',
    health: computeHealth([queueRow('SENT', { rowNumber: 2 }), queueRow('PENDING', { rowNumber: 3 }), queueRow('FAILED', { rowNumber: 4 })], T0, SPREADSHEET_URL, 0),
    incidents: [],
    history: [],
    now: T0,
    settings: testSettings({ DAILY_SUMMARY: 'true' }),
    remainingMailQuota: 100,
    ...overrides,
  };
}

describe('daily summary', () => {
  const silentCases: { name: string; overrides: Partial<DailySummaryInput> }[] = [
    { name: 'DAILY_SUMMARY is off', overrides: { settings: testSettings() } },
    { name: 'it was already sent for this date', overrides: { lastSentDateKey: '2025-06-01' } },
    { name: 'the mail quota cannot cover every staff address', overrides: { remainingMailQuota: 1 } },
    { name: "the mail quota after it would fall under the replies' reserve", overrides: { remainingMailQuota: TRIAGE_MAIL_RESERVE + 1 } },
    { name: 'no staff address is set', overrides: { settings: testSettings({ DAILY_SUMMARY: 'on', STAFF_EMAILS: '' }) } },
  ];
  for (const { name, overrides } of silentCases) {
    it(`is not sent when ${name}`, () => {
      expect(planDailySummary(input(overrides))).toBeNull();
    });
  }

  it('lists counts per status, rows needing a person and the incidents of the day', () => {
    const props = new MemoryProperties();
    runOnce(props, T0 - 120 * MINUTE, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    runOnce(props, T0 - 100 * MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE'));
    runOnce(props, T0 - 90 * MINUTE, () => undefined); // recovery mailed: now only in the history
    runOnce(props, T0 - 10 * MINUTE, (book) => book.raise('GEMINI_KEY_INVALID', `bad key ${API_KEY}`));
    const book = new IncidentBook(props, new FakeClock(T0));
    const mail = planDailySummary(input({ incidents: book.all(), history: book.recentHistory() }));
    expect(mail?.to).toBe('duty@example.org,lead@example.org');
    expect(mail?.subject).toBe('[formqueue] Daily summary 2025-06-01 — 1 waiting, 1 need a person, 2 incidents');
    expect(mail?.body).toContain('Queue: PENDING 1, GENERATING 0');
    expect(mail?.body).toContain(`row 4 (FAILED, mail_ref none yet): ${SPREADSHEET_URL}#gid=0&range=A4`);
    expect(mail?.body).toContain('Gemini API key invalid: open since 2025-06-01 09:50 UTC, seen 1 time');
    expect(mail?.body.split('\nFor the person who set this up\n')[1]).toContain('GEMINI_KEY_INVALID (Gemini API key invalid)');
    expect(mail?.body).toContain('Sheets unavailable: resolved 2025-06-01 08:20 UTC after 20 min, seen 1 time');
    expect(mail?.body).not.toContain(API_KEY);
  });

  it("carries the rejected deliveries of today so far and of the last earlier day, which REJECTED_DELIVERIES mails only once", () => {
    const rejected = { day: '2025-06-01', count: 3, dropped: 0, kinds: {}, bytes: 9000, through: 'x', previous: { day: '2025-05-31', count: 240, dropped: 228, kinds: {} } };
    expect(planDailySummary(input({ rejected }))?.body).toContain(
      'Rejected deliveries: 3 today so far (0 without their body); 240 on 2025-05-31 (228 without their body); see the Rejected sheet',
    );
    expect(planDailySummary(input({ rejected: { ...rejected, count: 0, previous: undefined } }))?.body).not.toContain('Rejected deliveries');
  });

  it('is sent once per date: the book remembers the date key', () => {
    const props = new MemoryProperties();
    const sent: string[] = [];
    for (const [at, dateKey] of [[T0, '2025-06-01'], [T0 + MINUTE, '2025-06-01'], [T0 + 24 * 60 * MINUTE, '2025-06-02']] as const) {
      const book = new IncidentBook(props, new FakeClock(at));
      const mail = planDailySummary(input({ now: at, dateKey, lastSentDateKey: book.lastDailySummaryDate() }));
      if (mail) {
        sent.push(dateKey);
        book.markDailySummarySent(dateKey);
      }
      book.commit();
    }
    expect(sent).toEqual(['2025-06-01', '2025-06-02']);
  });
});

describe('daily summary, exactly', () => {
  const DAY = 24 * 60 * MINUTE;
  const incident = (patch: Partial<Incident>): Incident => ({
    code: 'GEMINI_DAILY_QUOTA', firstSeen: T0 - 3 * 60 * MINUTE, lastSeen: T0 - 60 * MINUTE, count: 2, runs: 2, rows: [], rowCount: 0,
    detail: '', lastMailedAt: null, mailsSent: 0, state: 'open', clearedAt: null, ...patch,
  });

  it('the whole mail: counts, rows for a person with and without links, and each kind of incident line', () => {
    const health = { ...computeHealth([queueRow('FAILED', { rowNumber: 4 }), queueRow('', { rowNumber: 5 })], T0, SPREADSHEET_URL, 0) };
    health.needsPerson = [needsRow(4, 'FAILED', `${SPREADSHEET_URL}#gid=0&range=A4`, { mailRef: 'FQ-AB12CD' }), needsRow(5, '', null)];
    const mail = planDailySummary(input({
      health,
      incidents: [
        incident({}),
        incident({ code: 'SHEETS_UNAVAILABLE', state: 'cleared', clearedAt: T0 - 30 * MINUTE, count: 1 }),
        incident({ code: 'MAIL_QUOTA_EXHAUSTED', state: 'cleared', lastSeen: T0 - DAY - MINUTE, clearedAt: T0 - DAY }), // a day old: left out
        incident({ code: 'GEMINI_KEY_INVALID', lastSeen: T0 - 2 * DAY }), // old but still open: listed
      ],
      history: [
        { code: 'GEMINI_RATE_LIMITED', firstSeen: T0 - DAY, clearedAt: T0 - DAY + 90 * MINUTE, count: 3 }, // exactly a day ago: listed
        { code: 'CODE_BUG', firstSeen: T0 - 2 * DAY, clearedAt: T0 - DAY - 1, count: 1 }, // over a day ago: left out
      ],
    }));
    expect(mail?.name).toBe('formqueue');
    expect(mail?.subject).toBe('[formqueue] Daily summary 2025-06-01 — 0 waiting, 2 need a person, 4 incidents');
    expect(mail?.body.split('\n')).toEqual([
      'Queue: PENDING 0, GENERATING 0, READY 0, AWAITING_APPROVAL 0, APPROVED 0, SENDING 0, SENT 0, NEEDS_REVIEW 0, FAILED 1, SKIPPED 0, DUPLICATE 0, TEST 0',
      'Waiting for a reply: 0',
      'Rows that need a person: 2',
      `  row 4 (FAILED, mail_ref FQ-AB12CD): ${SPREADSHEET_URL}#gid=0&range=A4`,
      '      failed',
      '  row 5 (no status, mail_ref none yet)',
      '      status not known',
      `Missed deliveries: ${MISSED_DELIVERIES_UNRECOVERABLE.replace(' (docs/reconciliation.md)', '')}`,
      '',
      'Incidents of the last 24 hours',
      '------------------------------',
      'Gemini daily quota used up: open since 2025-06-01 07:00 UTC, seen 2 times',
      'Sheets unavailable: cleared 2025-06-01 09:30 UTC, seen 1 time',
      'Gemini API key invalid: open since 2025-06-01 07:00 UTC, seen 2 times',
      'Gemini rate limit persists: resolved 2025-05-31 11:30 UTC after 1 h 30 min, seen 3 times',
      '',
      'For the person who set this up',
      '------------------------------',
      'Codes: GEMINI_DAILY_QUOTA (Gemini daily quota used up), SHEETS_UNAVAILABLE (Sheets unavailable), GEMINI_KEY_INVALID (Gemini API key invalid), GEMINI_RATE_LIMITED (Gemini rate limit persists)',
      'Rows by event_id: row 4: ev-4, row 5: ev-5',
      'In the repository: docs/reconciliation.md',
      '',
    ]);
  });

  it('an incident last seen, and one resolved, exactly 24 hours ago are still in the summary', () => {
    const mail = planDailySummary(input({
      incidents: [incident({ state: 'cleared', lastSeen: T0 - DAY, clearedAt: T0 - DAY })],
      history: [{ code: 'CODE_BUG', firstSeen: T0 - 2 * DAY, clearedAt: T0 - DAY, count: 1 }],
    }));
    expect(mail?.subject).toMatch(/, 2 incidents$/);
  });

  it.each<[string, Partial<DailySummaryInput>]>([
    ['only an incident of the day', { incidents: [incident({})] }],
    ['only one resolved lately', { history: [{ code: 'CODE_BUG', firstSeen: T0 - 60 * MINUTE, clearedAt: T0 - 30 * MINUTE, count: 1 }] }],
  ])('with %s it does not say None', (_case, overrides) => {
    expect(planDailySummary(input(overrides))?.body).not.toContain('None.');
  });

  it('names the kinds of each day with their counts, partial responses among them', () => {
    const rejected = {
      day: '2025-06-01', count: 5, dropped: 0, kinds: { partial: 3, unknown_form: 1, internal_error: 1 }, bytes: 9000, through: 'x',
      previous: { day: '2025-05-31', count: 12, dropped: 2, kinds: { unauthorized: 10, field_too_large: 2 } },
    };
    expect(planDailySummary(input({ rejected }))?.body).toContain(
      'Rejected deliveries: 5 today so far (0 without their body; unknown form 1, internal error 1, partial response 3); ' +
        '12 on 2025-05-31 (2 without their body; field too large 2, missing or wrong token 10); see the Rejected sheet',
    );
  });

  it('an earlier day with no rejections counted is not reported beside today', () => {
    const rejected = { day: '2025-06-01', count: 2, dropped: 1, kinds: {}, bytes: 9000, through: 'x', previous: { day: '2025-05-31', count: 0, dropped: 0, kinds: {} } };
    expect(planDailySummary(input({ rejected }))?.body).toContain('Rejected deliveries: 2 today so far (1 without their body); see the Rejected sheet');
  });

  it('a quiet day says None; an unreadable queue says so, with the time of the last figures when there are some', () => {
    const never = planDailySummary(input({ health: { ...computeHealth([], T0), readable: false, countedAt: null } }));
    expect(never?.body).toContain('\nThe queue could not be read.\n');
    expect(never?.body).toContain('------------------------------\nNone.\n');
    const earlier = planDailySummary(input({ health: { ...computeHealth([], T0), readable: false, countedAt: T0 - 60 * MINUTE } }));
    expect(earlier?.body).toContain('The queue could not be read; figures as last read 2025-06-01 09:00 UTC.');
    const readable = planDailySummary(input({ health: computeHealth([], T0) }));
    expect(readable?.body).not.toContain('could not be read');
  });

  it("is sent when the quota covers exactly every staff address plus the replies' reserve, and not for an empty date key", () => {
    expect(planDailySummary(input({ remainingMailQuota: TRIAGE_MAIL_RESERVE + 2 }))).not.toBeNull();
    expect(planDailySummary(input({ dateKey: '' }))).toBeNull();
  });

  it('redacts a secret from the body and subject but keeps the spreadsheet link', () => {
    const mail = planDailySummary(input({ incidents: [incident({ code: 'GEMINI_KEY_INVALID', detail: API_KEY })], dateKey: `2025-06-01 ${API_KEY}` }));
    expect(mail?.subject).not.toContain(API_KEY);
    expect(mail?.body).toContain(`${SPREADSHEET_URL}#gid=0&range=A4`);
  });
});

describe('daily summary, Gemini usage and approvals', () => {
  const quiet = (overrides: Partial<DailySummaryInput>) => input({ health: computeHealth([], T0), ...overrides });
  const head = [
    'Queue: PENDING 0, GENERATING 0, READY 0, AWAITING_APPROVAL 0, APPROVED 0, SENDING 0, SENT 0, NEEDS_REVIEW 0, FAILED 0, SKIPPED 0, DUPLICATE 0, TEST 0',
    'Waiting for a reply: 0',
    'Rows that need a person: 0',
    `Missed deliveries: ${MISSED_DELIVERIES_UNRECOVERABLE.replace(' (docs/reconciliation.md)', '')}`,
  ];
  const tail = [
    '',
    'Incidents of the last 24 hours',
    '------------------------------',
    'None.',
    '',
    'For the person who set this up',
    '------------------------------',
    'In the repository: docs/reconciliation.md',
    '',
  ];

  it('a month without any Gemini call says so under the usage heading, and an empty list of approvals adds no heading', () => {
    expect(planDailySummary(quiet({ usage: [], reviews: [] }))?.body.split('\n')).toEqual([
      ...head,
      '',
      'Replies, tokens and estimated cost (Gemini)',
      '-------------------------------------------',
      'No Gemini call recorded this month.',
      ...tail,
    ]);
  });

  it('a period with one form and model shows it on its own line; one with several counts them and lists each; approvals follow under their heading', () => {
    const usage = [
      { title: 'Today so far (2025-06-01)', lines: ['Contact form, gemini-2.5-flash: 3 replies'] },
      { title: 'This month so far (2025-06)', lines: ['Contact form, gemini-2.5-flash: 40 replies', 'Refunds, gemini-2.5-pro: 2 replies'] },
    ];
    const reviews = ['5 sent as written, 1 edited', 'median wait 2 h'];
    expect(planDailySummary(quiet({ usage, reviews }))?.body.split('\n')).toEqual([
      ...head,
      '',
      'Replies, tokens and estimated cost (Gemini)',
      '-------------------------------------------',
      'Today so far (2025-06-01): Contact form, gemini-2.5-flash: 3 replies',
      'This month so far (2025-06): 2 forms × models',
      'Contact form, gemini-2.5-flash: 40 replies',
      'Refunds, gemini-2.5-pro: 2 replies',
      '',
      'Replies that waited for approval',
      '--------------------------------',
      '5 sent as written, 1 edited',
      'median wait 2 h',
      ...tail,
    ]);
  });

  it('without usage figures or approvals the summary has neither section', () => {
    expect(planDailySummary(quiet({}))?.body.split('\n')).toEqual([...head, ...tail]);
  });
});
