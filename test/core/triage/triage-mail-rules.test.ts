// Triage mail planning rules case by case: when a mail is due, which goes first when mail is scarce, and each line that depends on the figures.
import { describe, expect, it } from 'vitest';
import type { IncidentCode } from '../../../src/core/domain/failures/codes';
import { computeHealth, type QueueHealth } from '../../../src/core/triage/health';
import { RECOVERY_QUIET_MINUTES } from '../../../src/core/triage/incident-policy';
import type { Incident } from '../../../src/core/triage/incidents';
import { dueMailKind, nextTriageMailAt, planTriageMails, TRIAGE_MAIL_RESERVE } from '../../../src/core/triage/triage-mail';
import { HOUR, MINUTE, queueRow, T0 } from '../fakes/rows';
import { SPREADSHEET_URL, WEBHOOK_TOKEN, testSettings } from './fakes';

const QUIET = RECOVERY_QUIET_MINUTES * MINUTE;

function incident(code: IncidentCode, overrides: Partial<Incident> = {}): Incident {
  return {
    code, firstSeen: T0 - 2 * HOUR, lastSeen: T0 - 5 * MINUTE, count: 4, runs: 3, rows: [5, 6], rowCount: 2,
    detail: '', lastMailedAt: null, mailsSent: 0, state: 'open', clearedAt: null, ...overrides,
  };
}

function mailFor(entry: Incident, health: QueueHealth) {
  const plan = planTriageMails([entry], health, T0, testSettings(), { remainingMailQuota: 100 });
  expect(plan.mails).toHaveLength(1);
  return plan.mails[0].mail;
}

const lines = (body: string) => body.split('\n');

describe('when a mail is due', () => {
  it('a cleared incident without a clearing time is never due a recovery mail', () => {
    expect(dueMailKind(incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: null }), T0 + 24 * HOUR, 60)).toBeNull();
  });

  it.each<[string, Incident[], number, number | null]>([
    ['nothing cleared', [incident('CODE_BUG')], T0, null],
    ['an open incident with a stale clearing time does not count', [incident('CODE_BUG', { clearedAt: T0 })], T0, null],
    ['a cleared incident without a clearing time does not count', [incident('CODE_BUG', { state: 'cleared', clearedAt: null })], T0, null],
    ['a cleared incident without a clearing time does not count even at time 0', [incident('CODE_BUG', { state: 'cleared', clearedAt: null })], 0, null],
    ['the earliest of two recoveries, whatever their order', [
      incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0 + 2 * MINUTE }),
      incident('GEMINI_UNAVAILABLE', { state: 'cleared', clearedAt: T0 }),
    ], T0, T0 + QUIET],
    ['a recovery already due is not a future moment', [incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0 - QUIET })], T0, null],
    ['one minute before it is due', [incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0 - QUIET + MINUTE })], T0, T0 + MINUTE],
  ])('next mail moment: %s', (_, incidents, now, expected) => {
    expect(nextTriageMailAt(incidents, now)).toBe(expected);
  });
});

describe('which mail goes first', () => {
  const due = [
    incident('GEMINI_DAILY_QUOTA', { lastMailedAt: T0 - 2 * HOUR, mailsSent: 1 }), // a reminder
    incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0 - HOUR }), // a recovery
    incident('MAIL_LIMIT_REACHED', { firstSeen: T0 - HOUR }), // first, quota
    incident('CODE_BUG', { firstSeen: T0 - 10 * MINUTE }), // first, code bug
    incident('GEMINI_KEY_INVALID', { firstSeen: T0 - 2 * HOUR }), // first, configuration
    incident('CONFIG_MISSING', { firstSeen: T0 - 3 * HOUR }), // first, configuration, seen earlier
  ];

  it('first mails before recoveries before reminders; then code bugs, configuration, platform, quota; then the oldest', () => {
    const plan = planTriageMails(due, computeHealth([], T0), T0, testSettings(), { remainingMailQuota: 100 });
    expect(plan.mails.map((m) => `${m.kind} ${m.code}`)).toEqual([
      'first CODE_BUG', 'first CONFIG_MISSING', 'first GEMINI_KEY_INVALID', 'first MAIL_LIMIT_REACHED', 'recovery SHEETS_UNAVAILABLE', 'reminder GEMINI_DAILY_QUOTA',
    ]);
    expect(plan.held).toEqual([]);
  });

  it('a quota of one mail\'s recipients above the replies\' reserve sends that one and holds the rest in the same order', () => {
    const plan = planTriageMails(due, computeHealth([], T0), T0, testSettings(), { remainingMailQuota: TRIAGE_MAIL_RESERVE + 2 });
    expect(plan.mails.map((m) => [m.code, m.recipients, m.mail.to])).toEqual([['CODE_BUG', 2, 'duty@example.org,lead@example.org']]);
    expect(plan.held.map((h) => `${h.kind} ${h.code} ${h.reason}`)).toEqual([
      'first CONFIG_MISSING mail-reserve', 'first GEMINI_KEY_INVALID mail-reserve', 'first MAIL_LIMIT_REACHED mail-reserve',
      'recovery SHEETS_UNAVAILABLE mail-reserve', 'reminder GEMINI_DAILY_QUOTA mail-reserve',
    ]);
  });
});

describe('lines that depend on the figures', () => {
  it('the webhook token (a known secret no pattern would catch) is removed from the error', () => {
    const mail = mailFor(incident('CODE_BUG', { detail: `TypeError at doPost ?t=${WEBHOOK_TOKEN}x` }), computeHealth([], T0));
    expect(mail.body).not.toContain(WEBHOOK_TOKEN);
    expect(mail.body).toContain('[redacted]');
  });

  it('ROWS_NEED_A_PERSON: one row is one row; with none left it states the ordinary impact', () => {
    const one = mailFor(incident('ROWS_NEED_A_PERSON'), computeHealth([queueRow('FAILED', { rowNumber: 4 })], T0, SPREADSHEET_URL, 0));
    expect(lines(one.body)).toContain('Respondents affected: Yes. 1 row waits for a person: those respondents get no reply until someone acts.');
    const none = mailFor(incident('ROWS_NEED_A_PERSON'), computeHealth([], T0));
    expect(lines(none.body)).toContain('Respondents affected: No. No row is waiting for a reply, so no respondent is affected: 0 PENDING, nothing else waiting.');
  });

  it('only spilled deliveries waiting: the subject counts them without an age', () => {
    expect(mailFor(incident('GEMINI_DAILY_QUOTA'), computeHealth([], T0, '', null, { spilled: 2 })).subject).toBe('[formqueue] Gemini daily quota used up — 2 waiting');
  });

  it('a row needing a person without a link (no spreadsheet URL) and without a status is a plain line', () => {
    const mail = mailFor(incident('CODE_BUG'), computeHealth([queueRow('', { rowNumber: 7 })], T0));
    expect(lines(mail.body).filter((line) => line.startsWith('  row 7 (no status'))).toHaveLength(1);
    expect(mail.htmlBody).toContain('<div>  row 7 (no status');
  });

  it('the rest of the rows needing a person is a line in HTML too', () => {
    const health: QueueHealth = { ...computeHealth([queueRow('FAILED', { rowNumber: 4 })], T0), needsPersonCount: 3 };
    expect(mailFor(incident('CODE_BUG'), health).htmlBody).toContain('<div>  … and 2 more (filter the status column).</div>');
  });

  it.each<[string, Partial<Incident>, string]>([
    ['none named', { rows: [], rowCount: 0 }, 'Affected rows: none named'],
    ['exactly 30: all shown, no total', { rows: Array.from({ length: 30 }, (_, i) => i + 2), rowCount: 30 }, `Affected rows: ${Array.from({ length: 30 }, (_, i) => i + 2).join(', ')}`],
  ])('affected rows, %s', (_, overrides, line) => {
    expect(lines(mailFor(incident('CODE_BUG', overrides), computeHealth([], T0)).body)).toContain(line);
  });

  it('the error is a "Last error:" line and a preformatted block in HTML, and the first mail explains how repeats fold', () => {
    const html = mailFor(incident('CODE_BUG', { detail: 'TypeError: x is undefined\n  at f (Code:3:4)' }), computeHealth([], T0)).htmlBody;
    expect(html).toContain('<div>Last error:</div>\n<pre style="white-space:pre-wrap;font-size:12px">TypeError: x is undefined\n  at f (Code:3:4)</pre>');
    expect(html).toContain('<div>Repeats fold into this incident: at most one reminder every 1 h, and one mail when it clears.</div>');
  });
});

describe('how repeats fold, by the incident\'s mail rule', () => {
  it('rows needing a person: no reminders, but a mail when it clears', () => {
    const mail = mailFor(incident('ROWS_NEED_A_PERSON'), computeHealth([queueRow('FAILED', { rowNumber: 4 })], T0, SPREADSHEET_URL, 0));
    expect(lines(mail.body)).toContain('Repeats fold into this incident without another mail (Queue health and the daily summary list rows that join it), and one mail says when it clears.');
  });
});

describe('a recovery mail, by what the queue shows now', () => {
  const cleared = incident('SHEETS_UNAVAILABLE', { state: 'cleared', clearedAt: T0 - 30 * MINUTE });

  it.each<[string, QueueHealth, string]>([
    ['unreadable, never counted', { ...computeHealth([], T0), readable: false, countedAt: null },
      'Respondents affected: Unknown. The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown.'],
    ['nobody waiting', computeHealth([], T0), 'Respondents affected: No. A Google error with no PENDING rows means no user impact: 0 PENDING, nothing else waiting.'],
  ])('%s', (_, health, line) => {
    expect(lines(mailFor(cleared, health).body)).toContain(line);
  });

  it('one row still needing a person is named in the next step; the first word of it is a line in HTML', () => {
    const mail = mailFor(cleared, computeHealth([queueRow('FAILED', { rowNumber: 4 })], T0));
    expect(lines(mail.body)).toContain('Next step: Nothing for this incident; 1 row still needs a person (linked above).');
    expect(mail.htmlBody).toContain('<div>No mail went out while it lasted (mail quota or no staff address); this is the first word of it.</div>');
  });
});
