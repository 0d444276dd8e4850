// The words of each kind of triage mail, in full: what a person on duty reads first, then the queue, then details.
import { beforeEach, describe, expect, it } from 'vitest';
import type { IncidentCode } from '../../../src/core/domain/failures/codes';
import { computeHealth, type QueueHealth } from '../../../src/core/triage/health';
import type { Incident } from '../../../src/core/triage/incidents';
import { ERROR_SHOWN_CHARS } from '../../../src/core/triage/needs-person-mail';
import { planTriageMails } from '../../../src/core/triage/triage-mail';
import { API_KEY, SPREADSHEET_URL, testSettings } from './fakes';
import { HOUR, MINUTE, queueRow, T0 } from '../fakes/rows';


function incident(code: IncidentCode, overrides: Partial<Incident> = {}): Incident {
  return {
    code, firstSeen: T0 - 2 * HOUR, lastSeen: T0 - 5 * MINUTE, count: 4, runs: 3, rows: [5, 6], rowCount: 2,
    detail: `Exception: quota exceeded\n  at generate (Code:1:2) key ${API_KEY}`, lastMailedAt: null, mailsSent: 0,
    state: 'open', clearedAt: null, ...overrides,
  };
}

/** Two PENDING rows (one received 3 h ago), one FAILED row with a link, one mistyped status, two spilled deliveries. */
function busyHealth(): QueueHealth {
  const rows = [
    queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 3 * HOUR }),
    queueRow('PENDING', { rowNumber: 3, receivedAt: T0 - HOUR }),
    queueRow('FAILED', { rowNumber: 4, receivedAt: T0 - HOUR, error: 'GEMINI_CONTENT: Gemini blocked the prompt (SAFETY)' }),
    queueRow('SENTT', { rowNumber: 5, receivedAt: T0 - HOUR }),
  ];
  return computeHealth(rows, T0, SPREADSHEET_URL, 0, { spilled: 2 });
}

function mailFor(entry: Incident, health: QueueHealth, settings = testSettings()) {
  const plan = planTriageMails([entry], health, T0, settings, { remainingMailQuota: 100 });
  expect(plan.mails).toHaveLength(1);
  return plan.mails[0].mail;
}

describe('a first triage mail', () => {
  // Built inside each test, not while the file is collected: a mutation-testing run activates its mutant per test.
  const mail = () => mailFor(incident('GEMINI_DAILY_QUOTA'), busyHealth());

  it('subject: the incident, then how many wait and for how long', () => {
    expect(mail().subject).toBe('[formqueue] Gemini daily quota used up — 4 waiting, oldest 3 h');
  });

  it('body, line by line', () => {
    expect(mail().body.split('\n')).toMatchInlineSnapshot(`
      [
        "What happened: Gemini's daily quota or spend cap is used up (429): generation is paused until it resets. (Exception: quota exceeded)",
        "Respondents affected: Yes. 4 respondents are waiting for a reply (PENDING 2, spilled 2; the oldest has waited 180 min); they get it once this clears.",
        "Queue: PENDING 2, GENERATING 0, READY 0, AWAITING_APPROVAL 0, APPROVED 0, SENDING 0, SENT 0, NEEDS_REVIEW 0, FAILED 1, SKIPPED 0, DUPLICATE 0, TEST 0, unknown status 1, in the spill 2",
        "Oldest PENDING: 3 h (received 2025-06-01 07:00 UTC)",
        "Rows that need a person: 2",
        "  row 4 (FAILED, mail_ref none yet): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A4",
        "      Gemini wrote no reply · GEMINI_CONTENT: Gemini blocked the prompt (SAFETY)",
        "  row 5 (SENTT, mail_ref none yet): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A5",
        "      status not known",
        "Next step: Nothing to do unless replies are urgent: rows keep their place and generation resumes when Gemini's daily quota resets (midnight Pacific time); to go faster, raise the quota or spend cap in Google AI Studio.",
        "Repeats fold into this incident: at most one reminder every 1 h, and one mail when it clears.",
        "",
        "Details",
        "-------",
        "First seen: 2025-06-01 08:00 UTC",
        "Last seen: 2025-06-01 09:55 UTC (5 min ago)",
        "Seen: 4 times in 3 runs",
        "Affected rows: 5, 6",
        "",
        "For the person who set this up",
        "------------------------------",
        "Code: GEMINI_DAILY_QUOTA (class: quota)",
        "Rows by event_id: row 4: ev-4, row 5: ev-5",
        "Last error:",
        "Exception: quota exceeded",
        "  at generate (Code:1:2) key [redacted]",
        "",
      ]
    `);
  });

  it('never contains the API key, in text or HTML', () => {
    expect(mail().body).not.toContain(API_KEY);
    expect(mail().htmlBody).not.toContain(API_KEY);
    expect(mail().name).toBe('formqueue');
  });
});

describe('a reminder', () => {
  const mail = () => mailFor(incident('GEMINI_DAILY_QUOTA', { lastMailedAt: T0 - 90 * MINUTE, mailsSent: 1, detail: '' }), computeHealth([], T0, SPREADSHEET_URL, 0));

  it('subject says it is still going, for how long and how often', () => {
    expect(mail().subject).toBe('[formqueue] Still: Gemini daily quota used up (for 2 h, 4 times) — 0 waiting, no user impact');
  });

  it('body, line by line', () => {
    expect(mail().body.split('\n')).toMatchInlineSnapshot(`
      [
        "What happened: Gemini's daily quota or spend cap is used up (429): generation is paused until it resets. Still going after 2 h: seen 4 times since 2025-06-01 08:00 UTC.",
        "Respondents affected: No. No row is waiting for a reply, so no respondent is affected: 0 PENDING, nothing else waiting.",
        "Queue: PENDING 0, GENERATING 0, READY 0, AWAITING_APPROVAL 0, APPROVED 0, SENDING 0, SENT 0, NEEDS_REVIEW 0, FAILED 0, SKIPPED 0, DUPLICATE 0, TEST 0",
        "Oldest PENDING: none",
        "Rows that need a person: 0",
        "Next step: Nothing to do unless replies are urgent: rows keep their place and generation resumes when Gemini's daily quota resets (midnight Pacific time); to go faster, raise the quota or spend cap in Google AI Studio.",
        "",
        "Details",
        "-------",
        "First seen: 2025-06-01 08:00 UTC",
        "Last seen: 2025-06-01 09:55 UTC (5 min ago)",
        "Seen: 4 times in 3 runs",
        "Affected rows: 5, 6",
        "",
        "For the person who set this up",
        "------------------------------",
        "Code: GEMINI_DAILY_QUOTA (class: quota)",
        "",
      ]
    `);
  });
});

describe('a recovery mail', () => {
  const cleared = incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0 - 30 * MINUTE, caughtUp: { 'spilled deliveries queued': 3, 'rows generated': 2 }, detail: '' });
  const mail = () => mailFor(cleared, busyHealth());

  it('subject: resolved, how long it lasted and what was caught up', () => {
    expect(mail().subject).toBe('[formqueue] Resolved: Sheets unavailable (lasted 1 h 30 min) — 5 caught up');
  });

  it('body, line by line', () => {
    expect(mail().body.split('\n')).toMatchInlineSnapshot(`
      [
        "What happened: Sheets unavailable is over. It lasted 1 h 30 min (first seen 2025-06-01 08:00 UTC, cleared 2025-06-01 09:30 UTC), seen 4 times.",
        "Caught up: 3 spilled deliveries queued, 2 rows generated",
        "Respondents affected: Yes. A Google error with PENDING rows delays replies: 4 respondents are waiting for a reply (PENDING 2, spilled 2; the oldest has waited 180 min); they get it once this clears.",
        "Queue: PENDING 2, GENERATING 0, READY 0, AWAITING_APPROVAL 0, APPROVED 0, SENDING 0, SENT 0, NEEDS_REVIEW 0, FAILED 1, SKIPPED 0, DUPLICATE 0, TEST 0, unknown status 1, in the spill 2",
        "Oldest PENDING: 3 h (received 2025-06-01 07:00 UTC)",
        "Rows that need a person: 2",
        "  row 4 (FAILED, mail_ref none yet): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A4",
        "      Gemini wrote no reply · GEMINI_CONTENT: Gemini blocked the prompt (SAFETY)",
        "  row 5 (SENTT, mail_ref none yet): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A5",
        "      status not known",
        "Next step: Nothing for this incident; 2 rows still need a person (linked above).",
        "No mail went out while it lasted (mail quota or no staff address); this is the first word of it.",
        "",
        "Details",
        "-------",
        "First seen: 2025-06-01 08:00 UTC",
        "Last seen: 2025-06-01 09:55 UTC (5 min ago)",
        "Seen: 4 times in 3 runs",
        "Affected rows: 5, 6",
        "",
        "For the person who set this up",
        "------------------------------",
        "Code: SHEETS_UNAVAILABLE (class: Google platform outage)",
        "Rows by event_id: row 4: ev-4, row 5: ev-5",
        "",
      ]
    `);
  });

  it('with nothing caught up, nobody waiting for a person and no mail sent before, it says so', () => {
    const quiet = mailFor({ ...cleared, caughtUp: undefined }, computeHealth([], T0, SPREADSHEET_URL, 0));
    expect(quiet.subject).toBe('[formqueue] Resolved: Sheets unavailable (lasted 1 h 30 min)');
    expect(quiet.body).toContain('Caught up: nothing was reported as caught up\n');
    expect(quiet.body).toContain('Next step: Nothing: this incident is over.\n');
    expect(quiet.body).toContain('No mail went out while it lasted (mail quota or no staff address); this is the first word of it.\n');
    const told = mailFor({ ...cleared, mailsSent: 1 }, computeHealth([], T0, SPREADSHEET_URL, 0));
    expect(told.body).not.toContain('No mail went out while it lasted');
  });
});

describe('details that depend on the figures', () => {
  it('ROWS_NEED_A_PERSON: the subject and the impact count the rows waiting for a person', () => {
    const mail = mailFor(incident('ROWS_NEED_A_PERSON', { detail: '' }), busyHealth());
    expect(mail.subject).toBe('[formqueue] Rows need a person — 2 rows need a person');
    expect(mail.body).toContain('Respondents affected: Yes. 2 rows wait for a person: those respondents get no reply until someone acts.\n');
    const one = mailFor(incident('ROWS_NEED_A_PERSON', { detail: '' }), computeHealth([queueRow('FAILED', { rowNumber: 4 })], T0, SPREADSHEET_URL, 0));
    expect(one.subject).toBe('[formqueue] Rows need a person — 1 row needs a person');
  });

  it('an unreadable queue: impact unknown, and the figures said to be old or missing', () => {
    const never: QueueHealth = { ...computeHealth([], T0), readable: false, countedAt: null };
    const mail = mailFor(incident('GEMINI_DAILY_QUOTA', { detail: '' }), never);
    expect(mail.subject).toBe('[formqueue] Gemini daily quota used up — queue unreadable, impact unknown');
    expect(mail.body).toMatch(/\nQueue: PENDING 0,[^\n]*TEST 0 \(could not be read; no earlier figures\)\n/);
    expect(mail.body).toContain('Respondents affected: Unknown.');
    const earlier: QueueHealth = { ...computeHealth([], T0), readable: false, countedAt: T0 - HOUR };
    expect(mailFor(incident('GEMINI_DAILY_QUOTA', { detail: '' }), earlier).body).toContain('(could not be read; as last read 2025-06-01 09:00 UTC)\n');
  });

  it('more affected rows than are shown: the first 30, then the total', () => {
    const rows = Array.from({ length: 35 }, (_, i) => i + 2);
    const mail = mailFor(incident('GEMINI_DAILY_QUOTA', { rows, rowCount: 40, detail: '' }), busyHealth());
    expect(mail.body).toContain(`Affected rows: ${rows.slice(0, 30).join(', ')} … (40 in all)\n`);
  });

  it('more rows needing a person than are listed: the rest are counted', () => {
    const health: QueueHealth = { ...busyHealth(), needsPersonCount: 5 };
    expect(mailFor(incident('GEMINI_DAILY_QUOTA', { detail: '' }), health).body).toContain('  … and 3 more (filter the status column).\n');
  });

  it('the first line of the error goes in What happened, at most 200 characters', () => {
    const long = `${'x'.repeat(250)}\nsecond line`;
    const mail = mailFor(incident('GEMINI_DAILY_QUOTA', { detail: long }), busyHealth());
    expect(mail.body).toContain(` (${'x'.repeat(200)})\n`);
    expect(mail.body).not.toContain(` (${'x'.repeat(201)}`);
  });
});

describe('the needs-a-person mail', () => {
  const queue = [
    queueRow('FAILED', { rowNumber: 2, receivedAt: T0 - 3 * HOUR, error: 'MAIL_PERMANENT: no email address in the submission; no reply was generated (no Gemini call).' }),
    queueRow('NEEDS_REVIEW', { rowNumber: 3, receivedAt: T0 - 2 * HOUR, mailRef: 'FQ-GHQFAA', error: 'STALE_SENDING: sending started 21 min ago and its outcome was never recorded' }),
    queueRow('AWAITING_APPROVAL', { rowNumber: 4, receivedAt: T0 - 31 * HOUR, updatedAt: T0 - 30 * HOUR, mailRef: 'FQ-HSTG6B' }),
    queueRow('AWAITING_APPROVAL', { rowNumber: 5, receivedAt: T0 - 3 * HOUR, updatedAt: T0 - 2 * HOUR }), // younger than APPROVAL_WAIT_HOURS: not yet
    queueRow('SENT', { rowNumber: 6, receivedAt: T0 - HOUR }),
  ];
  let mail: ReturnType<typeof mailFor>;
  beforeEach(() => {
    const health = computeHealth(queue, T0, SPREADSHEET_URL, 0, { approvalWaitHours: 24 });
    mail = mailFor(incident('ROWS_NEED_A_PERSON', { rows: [2, 3, 4], rowCount: 3, count: 1, runs: 1, detail: '3 row(s) need a person: FAILED 1, NEEDS_REVIEW 1, AWAITING_APPROVAL 1' }), health);
  });

  it('links each row with its status, mail_ref, reason and error cell, then says what to do for each reason, once', () => {
    expect(mail.subject).toBe('[formqueue] Rows need a person — 3 rows need a person');
    expect(mail.body.split('\n\nDetails')[0].split('\n')).toMatchInlineSnapshot(`
      [
        "What happened: Rows are waiting for a person (FAILED, NEEDS_REVIEW, or AWAITING_APPROVAL for longer than APPROVAL_WAIT_HOURS): formqueue will not move them by itself. (3 row(s) need a person: FAILED 1, NEEDS_REVIEW 1, AWAITING_APPROVAL 1)",
        "Respondents affected: Yes. 3 rows wait for a person: those respondents get no reply until someone acts.",
        "Queue: PENDING 0, GENERATING 0, READY 0, AWAITING_APPROVAL 2, APPROVED 0, SENDING 0, SENT 1, NEEDS_REVIEW 1, FAILED 1, SKIPPED 0, DUPLICATE 0, TEST 0",
        "Oldest PENDING: none",
        "Rows that need a person: 3",
        "  row 2 (FAILED, mail_ref none yet): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A2",
        "      no email address · MAIL_PERMANENT: no email address in the submission; no reply was generated (no Gemini call).",
        "  row 3 (NEEDS_REVIEW, mail_ref FQ-GHQFAA): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A3",
        "      sending was interrupted · STALE_SENDING: sending started 21 min ago and its outcome was never recorded",
        "  row 4 (AWAITING_APPROVAL for 30 h, mail_ref FQ-HSTG6B): https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit#gid=0&range=A4",
        "      waiting for approval",
        "Next step: Open each linked row and do what "What to do" below says for its reason; none needs the Sent folder of the account formqueue runs as (the Log sheet, filtered by the row's event_id, and the respondent tell whether a mail went out).",
        "Repeats fold into this incident without another mail (Queue health and the daily summary list rows that join it), and one mail says when it clears.",
        "",
        "What to do",
        "----------",
        "Sending was interrupted (row 3): A run stopped while mailing this reply, so nobody knows whether it left. The Log sheet, filtered by the event_id, shows the "claimed for sending" line, then "about to send", and no SENT line after it. A run mails one row at a time, in order, and the rows it had not reached went back by themselves: this is the row to ask about first (the others of that run are not in doubt). Ask the respondent (the address in recipient) whether a mail with this mail_ref arrived, or ask whoever deployed formqueue to search that account's Sent mail for the mail_ref. It arrived: set SENT. It did not: set PENDING (a new reply is written and mailed). Whoever set formqueue up can switch on its Sent folder check, which settles such rows by itself.",
        "No email address (row 2): The submission gave no email address, so no reply was written. If the answers give another way to reach the person, type the address into recipient and set PENDING; or answer them another way and set SENT; or SKIPPED.",
        "Waiting for approval (row 4): The reply waits for approval. Read result, change it if you like, then set APPROVED (or use Approve selected); SKIPPED if it should not be answered.",
      ]
    `);
  });

  it('the operator footer: the code and class, the rows by event_id, and how to switch on the Sent check, once', () => {
    const footer = mail.body.split('\nFor the person who set this up\n')[1].split('\n');
    expect(footer.slice(1, 4)).toEqual([
      'Code: ROWS_NEED_A_PERSON (class: needs a person)',
      'Rows by event_id: row 2: ev-2, row 3: ev-3, row 4: ev-4',
      'Sent folder check: Script Property RECONCILE_SENT_MAIL=true (docs/oauth-scopes.md).',
    ]);
  });

  it('a secret in an error cell is redacted before the cell is cut, so no part of it is left', () => {
    const key = API_KEY;
    // The cut falls 16 characters into the key: cutting first would leave "AIzaSyD3m0Key_01", which no rule knows.
    const head = `MAIL_UNKNOWN: ${'word '.repeat(40)}`.slice(0, ERROR_SHOWN_CHARS - 1 - 16);
    const leaky = computeHealth([queueRow('NEEDS_REVIEW', { rowNumber: 2, error: `${head}${key} and more words after it` })], T0, SPREADSHEET_URL, 0);
    const body = mailFor(incident('ROWS_NEED_A_PERSON', { detail: '' }), leaky).body;
    expect(body).not.toContain(key.slice(0, 10));
    expect(body).toContain(`${head}[redacted] and`);
  });
});
