import { OPERATOR_FOOTER_HEADING } from '../../../src/core/triage/operator-footer';
import { beforeEach, describe, expect, it } from 'vitest';
import { INCIDENT_CODES } from '../../../src/core/domain/failures/codes';
import type { IncidentCode } from '../../../src/core/domain/failures/codes';
import { computeHealth } from '../../../src/core/triage/health';
import { INCIDENTS } from '../../../src/core/triage/incident-catalog';
import { CLASS_LABEL, RECOVERY_QUIET_MINUTES, type IncidentClass } from '../../../src/core/triage/incident-policy';
import { incidentFromJson, incidentKey } from '../../../src/core/triage/incidents';
import type { Incident } from '../../../src/core/triage/incidents';
import { TRIAGE_MAIL_RESERVE, dueMailKind, nextTriageMailAt, planTriageMails } from '../../../src/core/triage/triage-mail';
import { API_KEY, SPREADSHEET_URL, WEBHOOK_TOKEN, runOnce, testSettings } from './fakes';
import { MemoryProperties } from '../memory-ports';
import { MINUTE, queueRow, T0 } from '../fakes/rows';

function openIncident(code: IncidentCode, overrides: Partial<Incident> = {}): Incident {
  return {
    code,
    firstSeen: T0,
    lastSeen: T0,
    count: 1,
    runs: 1,
    rows: [],
    rowCount: 0,
    detail: 'something failed',
    lastMailedAt: null,
    mailsSent: 0,
    state: 'open',
    clearedAt: null,
    ...overrides,
  };
}

// Built before each test, not at import, so that Stryker's active mutant reaches computeHealth.
let EMPTY_HEALTH: ReturnType<typeof computeHealth>;
beforeEach(() => {
  EMPTY_HEALTH = computeHealth([], T0, SPREADSHEET_URL, 0);
});

describe('first mail', () => {
  it('goes out at once to every staff address, comma-joined, with a scannable subject', () => {
    const props = new MemoryProperties();
    const plan = runOnce(props, T0, (book) => book.raise('SHEETS_UNAVAILABLE', 'Exception: Error code INTERNAL'));
    expect(plan.sent).toHaveLength(1);
    expect(plan.sent[0].mail.to).toBe('duty@example.org,lead@example.org');
    expect(plan.sent[0].mail.subject).toBe('[formqueue] Sheets unavailable — 0 waiting, no user impact');
  });

  it('answers what, impact, queue, oldest PENDING, rows needing a person and next step in its first lines; code, class and event_ids only in the operator footer', () => {
    const props = new MemoryProperties();
    const rows = [queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 12 * MINUTE }), queueRow('SENT', { rowNumber: 3 }), queueRow('NEEDS_REVIEW', { rowNumber: 4 })];
    const plan = runOnce(props, T0, (book) => book.raise('GEMINI_KEY_INVALID', 'HTTP 403: API key not valid', [2]), { rows });
    const [staff, footer] = plan.sent[0].mail.body.split(`\n${OPERATOR_FOOTER_HEADING}\n`);
    const lines = staff.split('\n');
    expect(lines[0]).toMatch(/^What happened: Gemini refused the API key/);
    expect(lines[1]).toMatch(/^Respondents affected: Yes\. 1 respondent is waiting for a reply \(PENDING 1; the oldest has waited 12 min\)/);
    expect(lines[2]).toMatch(/^Queue: PENDING 1, GENERATING 0, READY 0, .*SENT 1, NEEDS_REVIEW 1/);
    expect(lines[3]).toBe('Oldest PENDING: 12 min (received 2025-06-01 09:48 UTC)');
    expect(lines[4]).toBe('Rows that need a person: 1');
    expect(lines[5]).toBe(`  row 4 (NEEDS_REVIEW, mail_ref none yet): ${SPREADSHEET_URL}#gid=0&range=A4`);
    expect(lines[6]).toBe('      parked by a paste or multi-cell edit');
    expect(lines[7]).toBe(`Next step: ${INCIDENTS.GEMINI_KEY_INVALID.nextStep}`);
    expect(staff).not.toMatch(/Class:|Code:|event_id ev-/);
    expect(footer.split('\n').slice(1, 3)).toEqual(['Code: GEMINI_KEY_INVALID (class: configuration)', 'Rows by event_id: row 4: ev-4']);
    expect(footer).toContain('Last error:\nHTTP 403: API key not valid');
    expect(plan.sent[0].mail.subject).toBe('[formqueue] Gemini API key invalid — 1 waiting, oldest 12 min');
  });

  it('renders simple escaped HTML with working row links', () => {
    const props = new MemoryProperties();
    const plan = runOnce(props, T0, (book) => book.raise('CODE_BUG', 'TypeError: <script>alert(1)</script> & more'), { rows: [queueRow('FAILED', { rowNumber: 7 })] });
    const html = plan.sent[0].mail.htmlBody;
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more');
    expect(html).not.toContain('<script>');
    expect(html).toContain(`<a href="${SPREADSHEET_URL}#gid=0&amp;range=A7">`);
  });
});

describe('reminders', () => {
  const reminderCases = [
    { minutesAfter: 30, reminders: 0 },
    { minutesAfter: 59, reminders: 0 },
    { minutesAfter: 60, reminders: 1 },
    { minutesAfter: 61, reminders: 1 },
  ];
  for (const { minutesAfter, reminders } of reminderCases) {
    it(`raising every minute for ${minutesAfter} min after the first mail sends ${reminders} reminder(s)`, () => {
      const props = new MemoryProperties();
      const kinds: string[] = [];
      for (let minute = 0; minute <= minutesAfter; minute++) {
        const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
        kinds.push(...plan.sent.map((mail) => mail.kind));
      }
      expect(kinds.filter((kind) => kind === 'reminder')).toHaveLength(reminders);
      expect(kinds.filter((kind) => kind === 'first')).toHaveLength(1);
    });
  }

  it('follows TRIAGE_REMINDER_MINUTES and says how long and how often in the subject', () => {
    const props = new MemoryProperties();
    const settings = testSettings({ TRIAGE_REMINDER_MINUTES: '10' });
    runOnce(props, T0, (book) => book.raise('GEMINI_DAILY_QUOTA', '429 per day'), { settings });
    const early = runOnce(props, T0 + 9 * MINUTE, (book) => book.raise('GEMINI_DAILY_QUOTA', '429 per day'), { settings });
    const due = runOnce(props, T0 + 10 * MINUTE, (book) => book.raise('GEMINI_DAILY_QUOTA', '429 per day'), { settings });
    expect(early.sent).toEqual([]);
    expect(due.sent.map((mail) => mail.mail.subject)).toEqual(['[formqueue] Still: Gemini daily quota used up (for 10 min, 3 times) — 0 waiting, no user impact']);
  });

  it('ROWS_NEED_A_PERSON is mailed once, however long it stays open and however many rows join it (no flood)', () => {
    const props = new MemoryProperties();
    const kinds: string[] = [];
    const rows = [queueRow('FAILED', { rowNumber: 2 })];
    for (let minute = 0; minute <= 6 * 60; minute++) {
      if (minute % 30 === 0) rows.push(queueRow('NEEDS_REVIEW', { rowNumber: rows.length + 2 })); // a new row every half hour
      const listed = rows.map((queued) => queued.rowNumber);
      const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.raise('ROWS_NEED_A_PERSON', `${rows.length} row(s) need a person`, listed), { rows });
      kinds.push(...plan.sent.map((mail) => mail.kind));
    }
    expect(kinds).toEqual(['first']);
    // Repeats are folded in (the incident knows every row), and the one mail says no reminder follows.
    expect(incidentFromJson(props.values[incidentKey('ROWS_NEED_A_PERSON')])).toMatchObject({ state: 'open', mailsSent: 1, rowCount: rows.length });
  });

  it('is not sent for an open incident nobody has seen again since the last mail', () => {
    const incident = openIncident('CONFIG_MISSING', { lastMailedAt: T0, mailsSent: 1 });
    const plan = planTriageMails([incident], EMPTY_HEALTH, T0 + 5 * 60 * MINUTE, testSettings(), { remainingMailQuota: 100 });
    expect(plan.mails).toEqual([]);
  });
});

describe('recovery', () => {
  it('sends one mail saying how long it lasted and what was caught up, then forgets the incident', () => {
    const props = new MemoryProperties();
    for (let minute = 0; minute < 12; minute++) runOnce(props, T0 + minute * MINUTE, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    const kinds: string[] = [];
    const subjects: string[] = [];
    for (let minute = 12; minute < 30; minute++) {
      const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE', minute === 12 ? { 'deliveries moved from the spill into Queue': 3 } : {}));
      kinds.push(...plan.sent.map((mail) => mail.kind));
      subjects.push(...plan.sent.map((mail) => mail.mail.subject));
    }
    expect(kinds).toEqual(['recovery']);
    expect(subjects).toEqual(['[formqueue] Resolved: Sheets unavailable (lasted 12 min) — 3 caught up']);
    expect(props.values[incidentKey('SHEETS_UNAVAILABLE')]).toBeUndefined();
  });

  it(`waits ${RECOVERY_QUIET_MINUTES} quiet minutes, so a flapping condition stays one incident`, () => {
    const incident = openIncident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0, lastMailedAt: T0, mailsSent: 1 });
    const settings = testSettings();
    const before = planTriageMails([incident], EMPTY_HEALTH, T0 + (RECOVERY_QUIET_MINUTES - 1) * MINUTE, settings, { remainingMailQuota: 100 });
    const after = planTriageMails([incident], EMPTY_HEALTH, T0 + RECOVERY_QUIET_MINUTES * MINUTE, settings, { remainingMailQuota: 100 });
    expect(before.mails).toEqual([]);
    expect(after.mails.map((mail) => mail.kind)).toEqual(['recovery']);
  });

  it('tells the tick gate when a recovery mail falls due, and nothing for open or already-due incidents', () => {
    const cleared = openIncident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0, lastMailedAt: T0, mailsSent: 1 });
    const later = openIncident('GEMINI_KEY_INVALID', { state: 'cleared', clearedAt: T0 + 2 * MINUTE, lastMailedAt: T0, mailsSent: 1 });
    const open = openIncident('CODE_BUG', { lastMailedAt: T0, mailsSent: 1 });
    expect(nextTriageMailAt([open, later, cleared], T0 + MINUTE)).toBe(T0 + RECOVERY_QUIET_MINUTES * MINUTE);
    expect(nextTriageMailAt([open, later, cleared], T0 + RECOVERY_QUIET_MINUTES * MINUTE)).toBe(T0 + (RECOVERY_QUIET_MINUTES + 2) * MINUTE);
    expect(nextTriageMailAt([open], T0)).toBeNull();
    expect(nextTriageMailAt([cleared], T0 + 60 * MINUTE)).toBeNull(); // already due (held by the quota): any run sends it
  });

  it('body states duration, first seen and cleared times, and the caught-up counts', () => {
    const incident = openIncident('SPILL_BACKLOG', {
      state: 'cleared',
      clearedAt: T0 + 90 * MINUTE,
      lastMailedAt: T0,
      mailsSent: 1,
      count: 40,
      caughtUp: { 'deliveries moved into Queue': 5 },
    });
    const [mail] = planTriageMails([incident], EMPTY_HEALTH, T0 + 100 * MINUTE, testSettings(), { remainingMailQuota: 100 }).mails;
    expect(mail.mail.body.split('\n')[0]).toBe(
      'What happened: Deliveries waiting outside the sheet is over. It lasted 1 h 30 min (first seen 2025-06-01 10:00 UTC, cleared 2025-06-01 11:30 UTC), seen 40 times.',
    );
    expect(mail.mail.body).toContain('Caught up: 5 deliveries moved into Queue');
  });
});

describe('incidents without follow-ups (REJECTED_DELIVERIES, ROWS_RESTORED)', () => {
  it('the catalog says which codes get no reminder and no recovery mail', () => {
    expect(INCIDENT_CODES.filter((code) => INCIDENTS[code].followUps === 'none')).toEqual(['REJECTED_DELIVERIES', 'ROWS_RESTORED', 'SUBMISSIONS_IN_REJECTED', 'RUNS_MISSED', 'GEMINI_MODEL_RETIRED']);
  });

  it('raised every hour for a day: one first mail, no reminder, and when it clears no "Resolved" mail — the daily summary keeps it', () => {
    const props = new MemoryProperties();
    const kinds: string[] = [];
    for (let hour = 0; hour < 24; hour++) {
      for (let minute = 0; minute < 60; minute += 15) {
        const plan = runOnce(props, T0 + (hour * 60 + minute) * MINUTE, (book) => book.raise('REJECTED_DELIVERIES', 'junk'));
        kinds.push(...plan.sent.map((mail) => mail.kind));
      }
    }
    expect(kinds).toEqual(['first']);
    const cleared = runOnce(props, T0 + 24 * 60 * MINUTE, (book) => book.clear('REJECTED_DELIVERIES'));
    const later = runOnce(props, T0 + 25 * 60 * MINUTE, () => undefined);
    expect([...cleared.sent, ...later.sent]).toEqual([]);
    expect(props.values[incidentKey('REJECTED_DELIVERIES')]).toBeUndefined();
    expect(JSON.parse(props.values.FQ_INCIDENT_HISTORY)).toEqual([expect.objectContaining({ code: 'REJECTED_DELIVERIES', count: 96 })]);
  });

  it('its first mail says no reminder and no mail when it clears follow', () => {
    const plan = runOnce(new MemoryProperties(), T0, (book) => book.raise('REJECTED_DELIVERIES', '10 deliveries were rejected today'));
    expect(plan.sent[0].mail.body).toContain('Repeats fold into this incident: no reminder and no mail when it clears (at most one mail a day); the daily summary lists it.');
  });

  it('a stored cleared copy (an older version) is never due a recovery mail', () => {
    const stored = openIncident('REJECTED_DELIVERIES', { state: 'cleared', clearedAt: T0, lastMailedAt: T0, mailsSent: 1 });
    expect(dueMailKind(stored, T0 + 60 * MINUTE, 60)).toBeNull();
    expect(dueMailKind(openIncident('REJECTED_DELIVERIES', { lastMailedAt: T0, mailsSent: 1, lastSeen: T0 + 59 * MINUTE }), T0 + 120 * MINUTE, 60)).toBeNull();
  });
});

describe('mail quota', () => {
  it('with quota 0 the mail waits, then goes out once when the quota returns', () => {
    const props = new MemoryProperties();
    const sent: string[] = [];
    for (let minute = 0; minute < 5; minute++) {
      const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.raise('MAIL_QUOTA_EXHAUSTED', 'Service invoked too many times for one day: email.'), { quota: 0 });
      expect(plan.held).toEqual([{ code: 'MAIL_QUOTA_EXHAUSTED', kind: 'first', reason: 'mail-reserve' }]);
      sent.push(...plan.sent.map((mail) => mail.kind));
    }
    for (let minute = 5; minute < 10; minute++) {
      const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.raise('MAIL_QUOTA_EXHAUSTED', 'still'), { quota: 100 });
      sent.push(...plan.sent.map((mail) => mail.kind));
    }
    expect(sent).toEqual(['first']);
  });

  it('an incident that cleared while mail was impossible is told once, as a recovery', () => {
    const props = new MemoryProperties();
    runOnce(props, T0, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'), { quota: 0 });
    runOnce(props, T0 + MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE'), { quota: 0 });
    const later = runOnce(props, T0 + 60 * MINUTE, () => undefined, { quota: 50 });
    const again = runOnce(props, T0 + 61 * MINUTE, () => undefined, { quota: 50 });
    expect(later.sent.map((mail) => mail.kind)).toEqual(['recovery']);
    expect(later.sent[0].mail.body).toContain('No mail went out while it lasted');
    expect(again.sent).toEqual([]);
  });

  it(`counts each staff address against the quota and holds what would touch the replies' reserve of ${TRIAGE_MAIL_RESERVE}`, () => {
    const incidents = [openIncident('CODE_BUG'), openIncident('CONFIG_INVALID')];
    const plan = planTriageMails(incidents, EMPTY_HEALTH, T0, testSettings(), { remainingMailQuota: TRIAGE_MAIL_RESERVE + 3 });
    expect(plan.mails.map((mail) => [mail.code, mail.recipients])).toEqual([['CODE_BUG', 2]]);
    expect(plan.held).toEqual([{ code: 'CONFIG_INVALID', kind: 'first', reason: 'mail-reserve' }]);
  });

  // Two staff addresses: a mail costs 2 recipients and goes only if TRIAGE_MAIL_RESERVE are left after it.
  it.each([
    [0, false],
    [1, false],
    [TRIAGE_MAIL_RESERVE, false],
    [TRIAGE_MAIL_RESERVE + 1, false],
    [TRIAGE_MAIL_RESERVE + 2, true],
    [100, true],
  ])('with %i recipients left today a triage mail to two addresses is sent: %s', (quota, sent) => {
    const plan = planTriageMails([openIncident('SHEETS_UNAVAILABLE')], EMPTY_HEALTH, T0, testSettings(), { remainingMailQuota: quota });
    expect(plan.mails.length > 0).toBe(sent);
    expect(plan.held).toEqual(sent ? [] : [{ code: 'SHEETS_UNAVAILABLE', kind: 'first', reason: 'mail-reserve' }]);
  });

  it('a mail held by the reserve stays un-mailed run after run, then goes out once when the quota allows', () => {
    const props = new MemoryProperties();
    const kinds: string[] = [];
    for (let minute = 0; minute < 5; minute++) {
      const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.raise('GEMINI_KEY_INVALID', 'HTTP 403'), { quota: TRIAGE_MAIL_RESERVE + 1 });
      kinds.push(...plan.sent.map((mail) => mail.kind));
    }
    expect(kinds).toEqual([]);
    expect(JSON.parse(props.values[incidentKey('GEMINI_KEY_INVALID')])).toMatchObject({ mailsSent: 0, lastMailedAt: null, count: 5 });
    for (let minute = 5; minute < 8; minute++) {
      const plan = runOnce(props, T0 + minute * MINUTE, (book) => book.raise('GEMINI_KEY_INVALID', 'HTTP 403'), { quota: 100 });
      kinds.push(...plan.sent.map((mail) => mail.kind));
    }
    expect(kinds).toEqual(['first']);
  });

  it('holds every mail when STAFF_EMAILS is empty, and sends once it is set', () => {
    const props = new MemoryProperties();
    const none = runOnce(props, T0, (book) => book.raise('CONFIG_MISSING', 'STAFF_EMAILS'), { settings: testSettings({ STAFF_EMAILS: '' }) });
    const some = runOnce(props, T0 + MINUTE, () => undefined);
    expect(none.held.map((entry) => entry.reason)).toEqual(['no-staff-emails']);
    expect(some.sent.map((mail) => mail.kind)).toEqual(['first']);
  });
});

describe('classification', () => {
  const expected: Record<IncidentCode, IncidentClass> = {
    SHEETS_UNAVAILABLE: 'platform',
    GEMINI_UNAVAILABLE: 'platform',
    GEMINI_DAILY_QUOTA: 'quota',
    GEMINI_RATE_LIMITED: 'quota',
    MAIL_QUOTA_EXHAUSTED: 'quota',
    MAIL_LIMIT_REACHED: 'quota',
    SPILL_BACKLOG: 'quota',
    GRID_NEARLY_FULL: 'quota',
    GEMINI_KEY_INVALID: 'configuration',
    GEMINI_MODEL_NOT_FOUND: 'configuration',
    CONFIG_MISSING: 'configuration',
    CONFIG_INVALID: 'configuration',
    TEMPLATE_INVALID: 'configuration',
    REJECTED_DELIVERIES: 'configuration',
    ROWS_RESTORED: 'needs-person',
    SENT_CHECK_FAILED: 'configuration',
    ROWS_NEED_A_PERSON: 'needs-person',
    WEBHOOK_DISABLED: 'configuration',
    SUBMISSIONS_RECOVERED: 'needs-person',
    SUBMISSIONS_IN_REJECTED: 'needs-person',
    RUNS_MISSED: 'quota',
    URLFETCH_DAILY_QUOTA: 'quota',
    CODE_BUG: 'code-bug',
    BOUNCE_CHECK_FAILED: 'configuration',
    GEMINI_MODEL_RETIRED: 'configuration',
    GEMINI_BUDGET_REACHED: 'quota',
    NEW_RECIPIENT_CEILING: 'quota',
    CONFIG_SHEET_INVALID: 'configuration',
  };
  for (const code of INCIDENT_CODES) {
    it(`${code} is mailed with its own next step in staff words, and as class "${CLASS_LABEL[expected[code]]}" in the operator footer`, () => {
      expect(INCIDENTS[code].class).toBe(expected[code]);
      const incident = openIncident(code, { runs: 3, lastSeen: T0 + 15 * MINUTE });
      const [planned] = planTriageMails([incident], EMPTY_HEALTH, T0 + 15 * MINUTE, testSettings(), { remainingMailQuota: 100 }).mails;
      const [staff, footer] = planned.mail.body.split(`\n${OPERATOR_FOOTER_HEADING}\n`);
      const pointers = /\s*\((?:see\s+)?((?:docs|src|scripts)\/[^\s)]+)\)/g;
      expect(staff).toContain(`Next step: ${INCIDENTS[code].nextStep.replace(pointers, '')}`);
      expect(staff).not.toMatch(/Class:|Code:|\b(docs|src)\/\S+\.(md|ts)/);
      expect(footer).toContain(`Code: ${code} (class: ${CLASS_LABEL[expected[code]]})\n`);
      for (const [, path] of INCIDENTS[code].nextStep.matchAll(pointers)) expect(footer).toContain(path);
    });
  }

  it('every next step is a distinct concrete sentence', () => {
    expect(new Set(Object.values(INCIDENTS).map((record) => record.nextStep)).size).toBe(INCIDENT_CODES.length);
  });
});

describe('Gemini rate limit', () => {
  const cases = [
    { runs: 2, minutes: 30, mailed: false },
    { runs: 5, minutes: 14, mailed: false },
    { runs: 3, minutes: 15, mailed: true },
  ];
  for (const { runs, minutes, mailed } of cases) {
    it(`seen in ${runs} runs over ${minutes} min is ${mailed ? '' : 'not '}mailed`, () => {
      const props = new MemoryProperties();
      const sent: string[] = [];
      for (let i = 0; i < runs; i++) {
        const at = T0 + Math.round((i * minutes * MINUTE) / (runs - 1));
        sent.push(...runOnce(props, at, (book) => book.raise('GEMINI_RATE_LIMITED', '429')).sent.map((mail) => mail.kind));
      }
      expect(sent).toEqual(mailed ? ['first'] : []);
    });
  }
});

describe('redaction in mails', () => {
  it('no API key, webhook token, bearer token or key= value survives in subject, text or HTML', () => {
    const props = new MemoryProperties();
    const stack = [
      `Exception: Request failed for https://generativelanguage.googleapis.com/v1beta/models/m:generateContent?key=${API_KEY} returned code 403`,
      `    at callGemini (Code:120:11) token=${WEBHOOK_TOKEN}`,
      '    Authorization: Bearer ya29.a0AfB_byC1234567890abcdefghij',
    ].join('\n');
    const plan = runOnce(props, T0, (book) => book.raise('CODE_BUG', stack), { rows: [queueRow('FAILED', { rowNumber: 3 })] });
    const { subject, body, htmlBody } = plan.sent[0].mail;
    for (const text of [subject, body, htmlBody]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(WEBHOOK_TOKEN);
      expect(text).not.toContain('ya29.a0AfB');
    }
    expect(body).toContain('at callGemini (Code:120:11)');
    expect(body).toContain(`${SPREADSHEET_URL}#gid=0&range=A3`);
  });
});

describe('the operator footer and the Sent folder check note', () => {
  const mailUnknownRow = () => queueRow('NEEDS_REVIEW', { rowNumber: 6, error: 'MAIL_UNKNOWN: Gmail said nothing clear' });
  const footerOf = (incident: Incident) => {
    const health = computeHealth([mailUnknownRow()], T0, SPREADSHEET_URL, 0);
    const plan = planTriageMails([incident], health, T0, testSettings(), { remainingMailQuota: 100 });
    expect(plan.mails).toHaveLength(1);
    return plan.mails[0].mail.body.split(`\n${OPERATOR_FOOTER_HEADING}\n`)[1].split('\n');
  };

  it('a first ROWS_NEED_A_PERSON mail with a row of unknown mail outcome names the Sent folder check switch in the footer', () => {
    expect(footerOf(openIncident('ROWS_NEED_A_PERSON', { rows: [6], rowCount: 1 }))).toEqual([
      '------------------------------',
      'Code: ROWS_NEED_A_PERSON (class: needs a person)',
      'Rows by event_id: row 6: ev-6',
      'Sent folder check: Script Property RECONCILE_SENT_MAIL=true (docs/oauth-scopes.md).',
      'Last error:',
      'something failed',
      '',
    ]);
  });

  it('a first mail of another incident, with the same row waiting, leaves the Sent folder check switch out of the footer', () => {
    expect(footerOf(openIncident('CODE_BUG'))).toEqual([
      '------------------------------',
      'Code: CODE_BUG (class: code bug)',
      'Rows by event_id: row 6: ev-6',
      'Last error:',
      'something failed',
      '',
    ]);
  });

  it('the recovery mail of ROWS_NEED_A_PERSON, with the row still waiting, leaves the Sent folder check switch out of the footer', () => {
    const cleared = openIncident('ROWS_NEED_A_PERSON', { firstSeen: T0 - 120 * MINUTE, state: 'cleared', clearedAt: T0 - 60 * MINUTE, lastMailedAt: T0 - 120 * MINUTE, mailsSent: 1, rows: [6], rowCount: 1 });
    expect(footerOf(cleared)).toEqual([
      '------------------------------',
      'Code: ROWS_NEED_A_PERSON (class: needs a person)',
      'Rows by event_id: row 6: ev-6',
      'Last error:',
      'something failed',
      '',
    ]);
  });
});
