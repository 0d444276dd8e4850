// Core's processQueue tick with in-memory ports: settings, failures, side conditions and triage, decided in one place.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../src/core/domain/failures/errors';
import { REJECTED_TOTALS_PROPERTY } from '../../../src/core/domain/typeform/rejection-tally';
import { REJECTED_INCIDENT_THRESHOLD } from '../../../src/core/domain/typeform/rejection-kinds';
import { runQueueTick } from '../../../src/core/runs/queue-tick';
import { LAST_SWEEP_PROPERTY, NEXT_DUE_PROPERTY } from '../../../src/core/domain/queue/tick-gate';
import { NEEDS_PERSON_GUIDE } from '../../../src/core/triage/needs-person';
import { HEALTH_SNAPSHOT_KEY } from '../../../src/core/triage/health-snapshot';
import { RECOVERY_QUIET_MINUTES } from '../../../src/core/triage/incident-policy';
import { HOUR_MS, MINUTE_MS } from '../../../src/core/domain/time';
import { handleDelivery } from '../../../src/core/intake/intake';
import { readSettings } from '../../../src/core/domain/config/settings';
import { FORMS_MIRROR_PROPERTY, mirroredForms } from '../../../src/core/domain/config/forms-mirror';
import { form, memoryIntake } from '../intake/memory-intake';
import { USAGE_PROPERTY } from '../../../src/core/domain/gemini/usage-tally';
import { RETIRED_MODELS_PROPERTY } from '../../../src/core/domain/gemini/model-list';
import { TEMPLATES_SEEN_PROPERTY, templateFingerprint } from '../../../src/core/processing/template-change';
import { BOUNCE_CHECK_PROPERTY } from '../../../src/core/processing/bounces';
import { MemoryBounceMailbox, MemoryConfig, MemoryJournal, formConfig, pendingRow, T0 } from '../memory-ports';
import { incident, intakeAndTick, retiringWorld, SETTINGS, tick, tickWorld, type TickWorld } from './tick-world';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/typeform/${name}`, import.meta.url), 'utf8');
const ESSAY = fixture('essay-submission.json');
const PARTIAL = fixture('partial-response.json');

describe('the processQueue tick', () => {
  it('generates and mails a pending row, then records when the next run is due', () => {
    const w = tickWorld();
    const report = tick(w);
    expect(report.summary).toMatchObject({ generated: 1, sent: 1 });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['mina.okafor@example.com']);
    expect(w.props.values[NEXT_DUE_PROPERTY]).toBe('');
  });

  it.each(['GEMINI_API_KEY', 'STAFF_EMAILS', 'WEBHOOK_TOKEN'])('a missing %s raises CONFIG_MISSING naming it, and setting it clears it', (key) => {
    const w = tickWorld({ ...SETTINGS, [key]: '' });
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'open' });
    expect(incident(w, 'CONFIG_MISSING')?.detail).toContain(`Script Property ${key} is not set`);
    w.props.values[key] = (SETTINGS as Record<string, string>)[key];
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'cleared' });
  });

  it.each<[string, Error, string]>([
    ['a Sheets outage', new Error('Exception: Service Spreadsheets failed while accessing document with id x.'), 'SHEETS_UNAVAILABLE'],
    ['no spreadsheet', codedError('CONFIG_MISSING', 'Script Property SPREADSHEET_ID is not set'), 'CONFIG_MISSING'],
    ['an unexpected error', new TypeError('Cannot read properties of undefined'), 'CODE_BUG'],
  ])('%s while opening the spreadsheet raises %s and brings the next tick back at once', (_name, error, code) => {
    const w = tickWorld();
    w.openWorkspace = () => {
      throw error;
    };
    const report = tick(w);
    expect(incident(w, code as 'CODE_BUG')).toMatchObject({ state: 'open' });
    expect(report.nextDueAt).toBe(T0);
  });

  it('the same failure inside processing is classified the same way', () => {
    const w = tickWorld();
    w.queue.failOn = { method: 'readAll', error: new Error('Exception: Service Spreadsheets failed while accessing document with id x.') };
    tick(w);
    expect(incident(w, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open' });
    expect(incident(w, 'CODE_BUG')).toBeUndefined();
  });

  it('SPILL_BACKLOG opens past the warning size and clears below it', () => {
    const w = tickWorld();
    w.spill = { chars: 250_000, count: 12 };
    tick(w);
    expect(incident(w, 'SPILL_BACKLOG')?.detail).toBe('12 deliveries wait in Script Properties (250000 characters of 400,000)');
    w.spill = { chars: 0, count: 0 };
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'SPILL_BACKLOG')).toMatchObject({ state: 'cleared' });
  });

  it(`REJECTED_DELIVERIES opens at ${REJECTED_INCIDENT_THRESHOLD} rejections today, counted by intake's own reader`, () => {
    const w = tickWorld({ ...SETTINGS, [REJECTED_TOTALS_PROPERTY]: JSON.stringify({ day: '2026-11-20', count: 7, dropped: 1, bytes: 9000, through: '' }) });
    for (const bytes of [0, 5000, 4000]) w.tally.append({ day: '2026-11-20', bytes }); // three more since the last fold
    tick(w);
    expect(w.tally.rows).toEqual([]);
    expect(incident(w, 'REJECTED_DELIVERIES')?.detail).toBe('10 deliveries were rejected today (2 without their body); see the Rejected sheet');
  });

  it('rejections counted on an earlier day do not open it', () => {
    const w = tickWorld({ ...SETTINGS, [REJECTED_TOTALS_PROPERTY]: JSON.stringify({ day: '2026-11-19', count: 100, dropped: 50, bytes: 9000, through: '' }) });
    tick(w);
    expect(incident(w, 'REJECTED_DELIVERIES')).toBeUndefined();
  });

  it('ten junk deliveries an hour for a whole day (counted by intake, read by the tick every 15 min): one "Deliveries rejected" mail that day, no "Resolved" mail, and a new one the next day', () => {
    const dayStart = Date.UTC(2026, 10, 21, 0, 0, 0);
    const intake = memoryIntake({ props: SETTINGS });
    const w = tickWorld(SETTINGS, []);
    w.props.values = intake.props; // doPost and processQueue share Script Properties and the Tally sheet
    w.tally = intake.tally;
    w.clock.time = dayStart;
    intake.deps.clock = w.clock;
    const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
    intake.deps.dateKey = utcDay;
    w.ports.dateKey = utcDay;
    const subjects = () => w.mailer.outbox.map((mail) => mail.subject).filter((subject) => /Deliveries rejected/.test(subject));
    for (let quarter = 0; quarter < 24 * 4; quarter++) {
      if (quarter % 4 === 0) for (let n = 0; n < 10; n++) handleDelivery({ token: 'no-token', body: '{"junk":true}' }, intake.deps);
      tick(w);
      w.clock.advance(15 * MINUTE_MS);
    }
    expect(subjects()).toEqual(['[formqueue] Deliveries rejected — 0 waiting, a respondent may be affected']);
    // The next day starts a new count: the old incident ends without mail, the new one is mailed once it has 10.
    for (let n = 0; n < 10; n++) handleDelivery({ token: 'no-token', body: '{"junk":true}' }, intake.deps);
    tick(w);
    expect(subjects()).toHaveLength(2);
    expect(w.mailer.outbox.filter((mail) => /Resolved/.test(mail.subject))).toEqual([]);
  });

  it('one delivery of a form Config does not enable (our token) opens REJECTED_DELIVERIES at once, and its mail says that respondent waits in Rejected', () => {
    const { intake, w, mails } = intakeAndTick();
    intake.forms = [form('OtherForm')];
    expect(handleDelivery({ token: intake.deps.settings.webhookToken, body: ESSAY }, intake.deps).error).toBe('unknown_form');
    tick(w);
    expect(incident(w, 'REJECTED_DELIVERIES')?.detail).toBe('1 delivery was rejected today (0 without their body): unknown form 1; see the Rejected sheet');
    expect(mails().map((mail) => mail.subject)).toEqual(['[formqueue] Deliveries rejected — 0 waiting']);
    expect(mails()[0].body).toContain(
      'Respondents affected: Yes. 1 finished submission came with the webhook token and was refused today (the detail says why): those respondents get no reply until staff accept them from the Rejected sheet',
    );
  });

  it('partial responses alone open nothing, however many, and are named once something else opens it', () => {
    const { intake, w } = intakeAndTick();
    for (let n = 0; n < 12; n++) handleDelivery({ token: intake.deps.settings.webhookToken, body: PARTIAL.replace('PARTIAL0000000000X', `PARTIAL000000000${String(n).padStart(2, '0')}`) }, intake.deps);
    tick(w);
    expect(incident(w, 'REJECTED_DELIVERIES')).toBeUndefined();
    for (let n = 0; n < 10; n++) handleDelivery({ token: 'no-token', body: '{"junk":true}' }, intake.deps);
    w.clock.advance(MINUTE_MS);
    tick(w);
    expect(incident(w, 'REJECTED_DELIVERIES')?.detail).toBe(
      '22 deliveries were rejected today (0 without their body): missing or wrong token 10, partial response 12; see the Rejected sheet',
    );
  });

  it('ROWS_NEED_A_PERSON names every NEEDS_REVIEW row in the Queue, even one a staff edit parked while paused', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [pendingRow(), pendingRow({ eventId: 'e2', responseToken: 't2', status: 'NEEDS_REVIEW' })]);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [3] });
  });

  it('a send with an unknown outcome is named under ROWS_NEED_A_PERSON once, by the tick', () => {
    const w = tickWorld(SETTINGS, [pendingRow({ status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' })]);
    w.mailer.failWith = (mail) => (mail.to === 'mina.okafor@example.com' ? 'Exception: something odd' : undefined);
    tick(w);
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [2] });
  });

  const staffMails = (w: TickWorld) => w.mailer.outbox.filter((mail) => mail.to.includes('duty@example.org'));

  it('a FAILED row raises ROWS_NEED_A_PERSON: one mail with its link and mail_ref; rows joining later send nothing; fixed, one recovery mail', () => {
    const failed = pendingRow({ eventId: 'e-failed', status: 'FAILED', mailRef: 'FQ-F41LED', error: 'MAIL_PERMANENT: Invalid email: mina@' });
    const w = tickWorld(SETTINGS, [failed]);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [2], detail: '1 row(s) need a person: FAILED 1' });
    expect(staffMails(w)).toHaveLength(1);
    const [mail] = staffMails(w);
    expect(mail.subject).toBe('[formqueue] Rows need a person — 1 row needs a person');
    expect(mail.body).toContain('  row 2 (FAILED, mail_ref FQ-F41LED): https://docs.google.com/spreadsheets/d/abc/edit#gid=0&range=A2\n');
    expect(mail.body).toContain('      mail refused · MAIL_PERMANENT: Invalid email: mina@\n');
    expect(mail.body.split('\nFor the person who set this up\n')[1]).toMatch(/^Rows by event_id: row \d+: e-failed$/m);
    expect(mail.body).toContain(`Mail refused (row 2): ${NEEDS_PERSON_GUIDE['mail-refused'].step}\n`);

    // Hours later, with rows joining the open incident: no reminder, no new mail.
    w.queue.rows.push({ ...pendingRow({ eventId: 'e-review', status: 'NEEDS_REVIEW', error: 'MAIL_UNKNOWN: odd' }), rowNumber: 3 });
    for (let hour = 1; hour <= 5; hour++) {
      w.clock.advance(HOUR_MS);
      tick(w);
    }
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [2, 3] });
    expect(staffMails(w)).toHaveLength(1);

    // Staff settle both rows: cleared now, one recovery mail after the quiet minutes.
    w.queue.edit(2, { status: 'SKIPPED' });
    w.queue.edit(3, { status: 'SENT' });
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'cleared' });
    w.clock.advance(5 * 60_000);
    tick(w);
    expect(staffMails(w).map((sent) => sent.subject)).toEqual([
      '[formqueue] Rows need a person — 1 row needs a person',
      expect.stringMatching(/^\[formqueue\] Resolved: Rows need a person \(lasted 5 h \d+ min\)$/),
    ]);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toBeUndefined();
  });

  it('an AWAITING_APPROVAL row raises ROWS_NEED_A_PERSON only once it has waited APPROVAL_WAIT_HOURS', () => {
    const waiting = pendingRow({ eventId: 'e-approve', status: 'AWAITING_APPROVAL', result: 'Dear Mina', mailRef: 'FQ-APPR0V', updatedAt: T0 });
    const w = tickWorld({ ...SETTINGS, APPROVAL_WAIT_HOURS: '6' }, [waiting]);
    tick(w);
    w.clock.advance(6 * HOUR_MS - 60_000);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toBeUndefined();
    expect(staffMails(w)).toEqual([]);
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [2], detail: '1 row(s) need a person: AWAITING_APPROVAL 1' });
    expect(staffMails(w).map((mail) => mail.subject)).toEqual(['[formqueue] Rows need a person — 1 row needs a person']);
    expect(staffMails(w)[0].body).toContain('  row 2 (AWAITING_APPROVAL for 6 h, mail_ref FQ-APPR0V): ');
  });

});

describe('the tick, rule by rule', () => {
  const CHECK = 'FQ_TYPEFORM_CHECK';
  const check = (patch: Record<string, unknown>) => JSON.stringify({ at: T0, since: '2026-11-19 06:00', until: '2026-11-20 06:00', recovered: 0, tokens: [], disabled: [], errors: [], complete: true, ...patch });

  it('a setting that does not parse raises CONFIG_INVALID with the problem, and a good value clears it', () => {
    const w = tickWorld({ ...SETTINGS, MAX_ATTEMPTS: '2.5' });
    tick(w);
    expect(incident(w, 'CONFIG_INVALID')).toMatchObject({ state: 'open' });
    expect(incident(w, 'CONFIG_INVALID')?.detail).toContain('MAX_ATTEMPTS');
    w.props.values.MAX_ATTEMPTS = '3';
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'CONFIG_INVALID')).toMatchObject({ state: 'cleared' });
  });

  it('with every setting good, CONFIG_INVALID and CONFIG_MISSING are never raised', () => {
    const w = tickWorld();
    tick(w);
    expect(incident(w, 'CONFIG_INVALID')).toBeUndefined();
    expect(incident(w, 'CONFIG_MISSING')).toBeUndefined();
  });

  it('a disabled Typeform webhook raises WEBHOOK_DISABLED naming the forms and the check time; none disabled clears it', () => {
    const w = tickWorld({ ...SETTINGS, [CHECK]: check({ disabled: ['F1', 'F2'] }) });
    tick(w);
    expect(incident(w, 'WEBHOOK_DISABLED')).toMatchObject({
      state: 'open',
      detail: `the Typeform webhook of form F1, F2 is disabled or missing (Typeform check ${new Date(T0).toISOString()})`,
    });
    w.props.values[CHECK] = check({});
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'WEBHOOK_DISABLED')).toMatchObject({ state: 'cleared' });
  });

  it.each<[string, Record<string, unknown>, number, string | undefined]>([
    ['more recovered than named', { recovered: 3, tokens: ['t1', 't2'] }, 0, '3 submission(s) of 2026-11-19 06:00–2026-11-20 06:00 UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens t1, t2, …)'],
    ['all of them named', { recovered: 2, tokens: ['t1', 't2'] }, 0, '2 submission(s) of 2026-11-19 06:00–2026-11-20 06:00 UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens t1, t2)'],
    ['a check just under a day old', { recovered: 1, tokens: ['t1'] }, 24 * HOUR_MS - 1, '1 submission(s) of 2026-11-19 06:00–2026-11-20 06:00 UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens t1)'],
    ['a check a day old', { recovered: 1, tokens: ['t1'] }, 24 * HOUR_MS, undefined],
    ['nothing recovered', { recovered: 0 }, 0, undefined],
  ])('SUBMISSIONS_RECOVERED, %s', (_what, patch, age, detail) => {
    const w = tickWorld({ ...SETTINGS, [CHECK]: check({ ...patch, at: T0 - age }) });
    tick(w);
    expect(incident(w, 'SUBMISSIONS_RECOVERED')?.detail).toBe(detail);
    expect(incident(w, 'WEBHOOK_DISABLED')).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, number, string | undefined]>([
    ['two found only in Rejected', { inRejected: 2, inRejectedTokens: ['r1', 'r2'] }, 0, '2 responses of 2026-11-19 06:00–2026-11-20 06:00 UTC are in Rejected only: accept them there (response tokens r1, r2)'],
    ['a check just under a day old', { inRejected: 1, inRejectedTokens: ['r1'] }, 24 * HOUR_MS - 1, '1 response of 2026-11-19 06:00–2026-11-20 06:00 UTC is in Rejected only: accept it there (response tokens r1)'],
    ['a check a day old', { inRejected: 1, inRejectedTokens: ['r1'] }, 24 * HOUR_MS, undefined],
    ['none in Rejected', { inRejected: 0 }, 0, undefined],
    ['a record from before the count was kept', {}, 0, undefined],
  ])('SUBMISSIONS_IN_REJECTED, %s', (_what, patch, age, detail) => {
    const w = tickWorld({ ...SETTINGS, [CHECK]: check({ ...patch, at: T0 - age }) });
    tick(w);
    expect(incident(w, 'SUBMISSIONS_IN_REJECTED')?.detail).toBe(detail);
    expect(incident(w, 'SUBMISSIONS_RECOVERED')).toBeUndefined();
  });

  it('the Typeform check\'s responses in Rejected reach staff: one mail saying those respondents wait, and no second mail while the next check still finds them', () => {
    const w = tickWorld({ ...SETTINGS, [CHECK]: check({ inRejected: 2, inRejectedTokens: ['r1', 'r2'] }) }, []);
    tick(w);
    const mails = () => w.mailer.outbox.filter((mail) => mail.subject.includes('Submissions waiting in Rejected'));
    expect(mails().map((mail) => mail.subject)).toEqual(['[formqueue] Submissions waiting in Rejected — 0 waiting']);
    expect(mails()[0].body).toContain('Respondents affected: Yes. Respondents whose finished submission is only in Rejected get no reply until staff accept it there');
    expect(mails()[0].body).toContain('(2 responses of 2026-11-19 06:00–2026-11-20 06:00 UTC are in Rejected only: accept them there (response tokens r1, r2))');
    w.clock.advance(23 * HOUR_MS);
    w.props.values[CHECK] = check({ at: w.clock.now(), inRejected: 1, inRejectedTokens: ['r2'] });
    tick(w);
    expect(mails()).toHaveLength(1);
    w.clock.advance(HOUR_MS);
    w.props.values[CHECK] = check({ at: w.clock.now(), inRejected: 0 });
    tick(w);
    expect(incident(w, 'SUBMISSIONS_IN_REJECTED')).toBeUndefined();
    expect(w.mailer.outbox.filter((mail) => /Resolved/.test(mail.subject))).toEqual([]);
  });

  it('more rows need a person than are listed: the detail says among how many', () => {
    const rows = Array.from({ length: 22 }, (_, i) => pendingRow({ eventId: `f${i}`, responseToken: `t${i}`, status: 'FAILED' }));
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, rows);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')?.detail).toBe('22 row(s) need a person: FAILED 20 among the first 20');
  });

  it('rows of two statuses are counted apart; no row needing a person clears the incident', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [
      pendingRow({ eventId: 'a', responseToken: 'a', status: 'FAILED' }),
      pendingRow({ eventId: 'b', responseToken: 'b', status: 'NEEDS_REVIEW' }),
      pendingRow({ eventId: 'c', responseToken: 'c', status: 'FAILED' }),
    ]);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ detail: '3 row(s) need a person: FAILED 2, NEEDS_REVIEW 1', rows: [2, 3, 4] });
    for (const n of [2, 3, 4]) w.queue.edit(n, { status: 'SKIPPED' });
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'cleared' });
  });

  it('while the Queue cannot be read, ROWS_NEED_A_PERSON is left as it was', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [pendingRow({ status: 'FAILED' })]);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open' });
    w.openWorkspace = () => {
      throw new Error('Exception: Service Spreadsheets failed while accessing document with id x.');
    };
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [2] });
  });

  it('a missing Tally sheet is CONFIG_MISSING, held open after the run; another Tally error is only logged', () => {
    const w = tickWorld();
    w.tally.read = () => {
      throw codedError('CONFIG_MISSING', 'the Tally sheet is missing; run Set up');
    };
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'open', detail: 'the Tally sheet is missing; run Set up' });
    const v = tickWorld();
    v.tally.read = () => {
      throw new Error('Exception: timed out');
    };
    tick(v);
    expect(v.warnings).toEqual(['rejected deliveries not counted this run: Exception: timed out']);
    expect(incident(v, 'CONFIG_MISSING')).toBeUndefined();
  });

  it('finished rows past ARCHIVE_AFTER_DAYS are archived under the intake lock, and not when the lock is busy', () => {
    const old = pendingRow({ eventId: 'old', responseToken: 'old', status: 'SENT', sentAt: T0 - 40 * 24 * HOUR_MS, updatedAt: T0 - 40 * 24 * HOUR_MS, receivedAt: T0 - 40 * 24 * HOUR_MS });
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [old]);
    const busy = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [{ ...old }]);
    const open = busy.openWorkspace;
    busy.openWorkspace = () => ({ ...open(), intakeLock: { tryLock: () => false, release: () => undefined } });
    let released = 0;
    const opened = w.openWorkspace;
    w.openWorkspace = () => ({ ...opened(), intakeLock: { tryLock: (ms: number) => ms === 10000, release: () => void released++ } });
    tick(w);
    tick(busy);
    expect(w.queue.rows).toEqual([]);
    expect(released).toBe(1);
    expect(busy.queue.rows.map((row) => row.eventId)).toEqual(['old']);
  });

  it('the next due time is written as a number, and a failing spill count during an outage counts nothing', () => {
    const w = tickWorld();
    w.openWorkspace = () => {
      throw new Error('Exception: Service Spreadsheets failed while accessing document with id x.');
    };
    w.ports.spill.count = () => {
      throw new Error('properties unreadable');
    };
    const report = tick(w);
    expect(report).toEqual({ summary: undefined, nextDueAt: T0 });
    expect(w.props.values[NEXT_DUE_PROPERTY]).toBe(String(T0));
    expect(w.props.values[LAST_SWEEP_PROPERTY]).toBe(String(T0));
  });

  const OUTAGE = () => new Error('Exception: Service Spreadsheets failed while accessing document with id x.');

  it('two missing settings are both named, one sentence each', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '', STAFF_EMAILS: '' });
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')?.detail).toMatch(/^Script Property GEMINI_API_KEY is not set[^]*\. Script Property STAFF_EMAILS is not set/);
  });

  it('a row with an empty status is counted as "no status"', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [pendingRow({ status: '' })]);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')?.detail).toBe('1 row(s) need a person: no status 1');
  });

  it('with the Queue unreadable and no earlier figures, the spilled deliveries still count as affected', () => {
    const w = tickWorld();
    w.openWorkspace = () => {
      throw OUTAGE();
    };
    w.spill.count = 2;
    tick(w);
    const [mail] = w.mailer.outbox;
    expect(mail.body).toContain('in the spill 2 (could not be read; no earlier figures)');
  });

  it('processing drains the spill and reads a payload kept in the Payloads sheet through the workspace', () => {
    const w = tickWorld(SETTINGS, [pendingRow({ payload: '(in Payloads: 2 parts)' })]);
    let drained = 0;
    const open = w.openWorkspace;
    w.openWorkspace = () => ({ ...open(), drainSpill: () => void drained++, readPayload: () => pendingRow().payload });
    const report = tick(w);
    expect(drained).toBe(1);
    expect(report.summary).toMatchObject({ generated: 1, sent: 1 });
  });

  it('a sheet missing inside processing keeps CONFIG_MISSING open after the run', () => {
    const w = tickWorld();
    w.queue.failOn = { method: 'readAll', error: codedError('CONFIG_MISSING', 'the Queue sheet is missing; run Set up') };
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'open', detail: expect.stringContaining('the Queue sheet is missing') });
  });

  it('a code bug inside processing does not clear SHEETS_UNAVAILABLE; a good run does, and counts the replies it caught up', () => {
    const w = tickWorld();
    w.openWorkspace = () => {
      throw OUTAGE();
    };
    tick(w);
    expect(incident(w, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open' });
    const fresh = tickWorld();
    w.openWorkspace = () => ({ ...fresh.openWorkspace(), queue: w.queue });
    w.queue.failOn = { method: 'readAll', error: new TypeError('x is not a function') };
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open' });
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'cleared', caughtUp: { 'replies sent': 1 } });
  });

  it('a Sheets outage on opening clears CONFIG_MISSING raised by a missing spreadsheet: the spreadsheet is there now', () => {
    const w = tickWorld();
    w.openWorkspace = () => {
      throw codedError('CONFIG_MISSING', 'Script Property SPREADSHEET_ID is not set');
    };
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'open' });
    w.openWorkspace = () => {
      throw OUTAGE();
    };
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'cleared' });
  });

  it('a Tally error other than a missing sheet still lets CONFIG_MISSING clear', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '' });
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'open' });
    w.props.values.GEMINI_API_KEY = SETTINGS.GEMINI_API_KEY;
    w.tally.read = () => {
      throw new Error('Exception: timed out');
    };
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'cleared' });
  });

  it('the next due time is the earlier of a retry and a recovery mail', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '' }, []);
    tick(w);
    w.props.values.GEMINI_API_KEY = SETTINGS.GEMINI_API_KEY;
    w.clock.advance(60_000);
    const cleared = w.clock.now();
    const onlyRecovery = tick(w);
    expect(onlyRecovery.nextDueAt).toBe(cleared + RECOVERY_QUIET_MINUTES * MINUTE_MS);
    expect(w.props.values[NEXT_DUE_PROPERTY]).toBe(String(cleared + RECOVERY_QUIET_MINUTES * MINUTE_MS));
    // An outage now brings the next tick back at once, before the recovery mail.
    w.openWorkspace = () => {
      throw OUTAGE();
    };
    w.clock.advance(60_000);
    expect(tick(w).nextDueAt).toBe(w.clock.now());
  });

  it('a retry due later than the recovery mail: the recovery mail comes first', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '' }, [pendingRow({ attempts: 1, nextAttemptAt: T0 + 3 * HOUR_MS })]);
    tick(w);
    w.props.values.GEMINI_API_KEY = SETTINGS.GEMINI_API_KEY;
    w.clock.advance(60_000);
    expect(tick(w).nextDueAt).toBe(w.clock.now() + RECOVERY_QUIET_MINUTES * MINUTE_MS);
  });

  it('nothing to archive: the intake lock is not even asked for', () => {
    const w = tickWorld();
    let asked = 0;
    const open = w.openWorkspace;
    w.openWorkspace = () => ({ ...open(), intakeLock: { tryLock: () => ++asked > 0, release: () => undefined } });
    tick(w);
    expect(asked).toBe(0);
  });

  it('a spill exactly at the warning size is no backlog', () => {
    const w = tickWorld();
    w.spill = { chars: 200_000, count: 5 };
    tick(w);
    expect(incident(w, 'SPILL_BACKLOG')).toBeUndefined();
    w.spill = { chars: 200_001, count: 5 };
    tick(w);
    expect(incident(w, 'SPILL_BACKLOG')).toMatchObject({ state: 'open' });
  });

  it('REJECTED_DELIVERIES ends when today\'s count is under the threshold', () => {
    const totals = (count: number) => JSON.stringify({ day: '2026-11-20', count, dropped: 0, bytes: 0, through: '' });
    const w = tickWorld({ ...SETTINGS, [REJECTED_TOTALS_PROPERTY]: totals(10) });
    tick(w);
    expect(incident(w, 'REJECTED_DELIVERIES')).toMatchObject({ state: 'open' });
    w.props.values[REJECTED_TOTALS_PROPERTY] = totals(9);
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'REJECTED_DELIVERIES')).toBeUndefined(); // it ends without a recovery mail
  });

  it('with the Queue unreadable and no figures kept, ROWS_NEED_A_PERSON is neither raised nor cleared', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [pendingRow({ status: 'FAILED' })]);
    tick(w);
    delete w.props.values[HEALTH_SNAPSHOT_KEY];
    w.openWorkspace = () => {
      throw OUTAGE();
    };
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open', rows: [2] });
  });

  it('SUBMISSIONS_RECOVERED clears once the check is a day old', () => {
    const check = JSON.stringify({ at: T0, since: 'a', until: 'b', recovered: 1, tokens: ['t1'], disabled: [], errors: [], complete: true });
    const w = tickWorld({ ...SETTINGS, FQ_TYPEFORM_CHECK: check });
    tick(w);
    expect(incident(w, 'SUBMISSIONS_RECOVERED')).toMatchObject({ state: 'open' });
    w.clock.advance(24 * HOUR_MS);
    tick(w);
    expect(incident(w, 'SUBMISSIONS_RECOVERED')?.state).not.toBe('open');
  });

  it('two settings that do not parse: both problems, a space between', () => {
    const w = tickWorld({ ...SETTINGS, MAX_ATTEMPTS: '2.5', GEMINI_CONCURRENCY: '0' });
    tick(w);
    expect(incident(w, 'CONFIG_INVALID')?.detail).toMatch(/Script Properties\. Script Property /);
  });

  it('two rows with an empty status are counted together', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, [pendingRow({ status: '', eventId: 'a' }), pendingRow({ status: '', eventId: 'b' })]);
    tick(w);
    expect(incident(w, 'ROWS_NEED_A_PERSON')?.detail).toBe('2 row(s) need a person: no status 2');
  });

  it('a paused run that opens the spreadsheet clears SHEETS_UNAVAILABLE (processing itself reads nothing)', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' });
    const open = w.openWorkspace;
    w.openWorkspace = () => {
      throw OUTAGE();
    };
    tick(w);
    expect(incident(w, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open' });
    w.openWorkspace = open;
    w.clock.advance(60_000);
    tick(w);
    expect(incident(w, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'cleared' });
  });
});

describe("the tick and intake's copy of Config", () => {
  it('leaves the forms it read in Script Properties, read at the start of its Config read, for doPost', () => {
    const w = tickWorld();
    const readAt = w.clock.now();
    tick(w);
    expect(JSON.parse(w.props.values[FORMS_MIRROR_PROPERTY])).toEqual({ readAt, forms: [['*', 1, '']] });
    expect(mirroredForms(w.props.values, w.clock.now())).toEqual([{ formId: '*', enabled: true, recipientField: '' }]);
  });

  it('leaves a fresh copy that agrees as it is', () => {
    const w = tickWorld();
    const fresh = JSON.stringify({ readAt: w.clock.now() - MINUTE_MS, forms: [['*', 1, '']] });
    w.props.values[FORMS_MIRROR_PROPERTY] = fresh;
    tick(w);
    expect(w.props.values[FORMS_MIRROR_PROPERTY]).toBe(fresh);
  });

  it('writes no copy when it could not read Config (the spreadsheet did not open)', () => {
    const w = tickWorld();
    w.openWorkspace = () => {
      throw codedError('SHEETS_UNAVAILABLE', 'Service Spreadsheets failed while accessing document');
    };
    tick(w);
    expect(w.props.values[FORMS_MIRROR_PROPERTY]).toBeUndefined();
  });
});

describe('the tick hands processing its start', () => {
  it('stops the run at its budget counted from when the tick started, mailing nothing past it', () => {
    const w = tickWorld();
    const budgetMs = readSettings(SETTINGS).settings.runBudgetSeconds * 1000;
    const report = runQueueTick(w.ports, w.props.getAll(), w.clock.now() - budgetMs);
    expect(report.summary?.stoppedBecause).toBe('budget');
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a tick that started just now mails the pending row', () => {
    const w = tickWorld();
    const report = runQueueTick(w.ports, w.props.getAll(), w.clock.now());
    expect(report.summary?.stoppedBecause).not.toBe('budget');
    expect(w.mailer.outbox).toHaveLength(1);
  });
});

describe('the tick and payloads kept in the Payloads sheet', () => {
  it("answers a row whose payload is in Payloads from the workspace's reader", () => {
    const pointer = '(in Payloads: 2 parts)';
    const w = tickWorld(SETTINGS, [pendingRow({ payload: pointer })]);
    const open = w.openWorkspace;
    const full = pendingRow().payload;
    // The subject names the respondent from the answers, which only the full payload holds.
    const config = new MemoryConfig([formConfig({ subject: 'For {{name}}' })]);
    w.openWorkspace = () => ({ ...open(), config, readPayload: (row) => (row.payload === pointer ? full : row.payload) });
    tick(w);
    expect(w.mailer.outbox.map((mail) => mail.subject)).toEqual([`For ${JSON.parse(full).form_response.answers[0].text}`]);
    expect(w.queue.rows[0].status).toBe('SENT');
  });
});

describe('the tick reads Script Properties once', () => {
  it('the snapshot it is given serves its incident book: no second read of every property', () => {
    const w = tickWorld();
    const snapshot = w.props.getAll();
    const before = w.props.calls.getAll;
    runQueueTick(w.ports, snapshot, w.clock.now());
    expect(w.props.calls.getAll - before).toBe(0);
  });
});

describe("the tick's closing write: what the run spent, found retired and saw of Config", () => {
  const MARKS = [USAGE_PROPERTY, RETIRED_MODELS_PROPERTY, TEMPLATES_SEEN_PROPERTY];
  const marksOf = (w: TickWorld) => Object.fromEntries(MARKS.map((key) => [key, w.props.values[key]]));
  const spent = { replies: 1, calls: 1, prompt: 412, output: 71, thinking: 0, cost: 0.001257, unpriced: 0 };

  it("stores the day's and month's tokens, the retired model and the forms' templates with the run's other marks", () => {
    const w = retiringWorld();
    tick(w);
    const fingerprint = templateFingerprint(formConfig());
    expect(JSON.parse(w.props.values[USAGE_PROPERTY])).toEqual({
      dayKey: '2026-11-20',
      day: { 'Wr1tE5sy|gemini-3.5-flash': spent },
      previousDayKey: '',
      previousDay: {},
      monthKey: '2026-11',
      month: { 'Wr1tE5sy|gemini-3.5-flash': spent },
      previousMonthKey: '',
      previousMonth: {},
    });
    expect(w.props.values[RETIRED_MODELS_PROPERTY]).toBe(JSON.stringify({ 'old-model': T0 }));
    expect(w.props.values[TEMPLATES_SEEN_PROPERTY]).toBe(JSON.stringify({ '*': fingerprint, Wr1tE5sy: fingerprint }));
  });

  it('a later run that spends nothing and finds nothing new leaves all three exactly as they were', () => {
    const w = retiringWorld();
    tick(w);
    const before = marksOf(w);
    w.clock.advance(MINUTE_MS);
    tick(w);
    expect(marksOf(w)).toEqual(before);
  });

  it('a paused run (no model found retired, Config not read) writes no record of either, only the new day\'s empty tally', () => {
    const w = tickWorld({ ...SETTINGS, PAUSED: 'true' }, []);
    tick(w);
    expect(marksOf(w)).toEqual({ [USAGE_PROPERTY]: JSON.stringify({ dayKey: '2026-11-20', day: {}, previousDayKey: '', previousDay: {}, monthKey: '2026-11', month: {}, previousMonthKey: '', previousMonth: {} }), [RETIRED_MODELS_PROPERTY]: undefined, [TEMPLATES_SEEN_PROPERTY]: undefined });
  });

});

describe("the tick's closing write: the Journal check and the bounce check", () => {
  it('keeps where the bounce check stopped, when the run made one', () => {
    const w = tickWorld({ ...SETTINGS, RECONCILE_BOUNCES: 'true' }, []);
    w.ports.bounceMail = new MemoryBounceMailbox();
    tick(w);
    expect(w.props.values[BOUNCE_CHECK_PROPERTY]).toBe(JSON.stringify({ at: T0, seen: [] }));
  });

  it('more open submissions than the Journal state holds: the oldest are dropped, and the log says how many', () => {
    // Ten unfinished rows with long response tokens: their keys fill more than the 80,000 characters the state keeps.
    const rows = Array.from({ length: 10 }, (_, i) => pendingRow({ eventId: `e${i}`, responseToken: `${i}${'t'.repeat(8500)}`, status: 'NEEDS_REVIEW' }));
    const w = tickWorld(SETTINGS, rows);
    const open = w.openWorkspace;
    const journal = new MemoryJournal();
    w.openWorkspace = () => ({ ...open(), journal });
    tick(w);
    expect(w.warnings).toEqual(['the Journal check watches too many open submissions: 1 of the oldest are no longer watched']);
  });

  it('a missing Journal sheet is CONFIG_MISSING with its message, held open after the run', () => {
    const w = tickWorld();
    const open = w.openWorkspace;
    const journal = new MemoryJournal();
    journal.missing = codedError('CONFIG_MISSING', 'the Journal sheet is missing; run Set up');
    w.openWorkspace = () => ({ ...open(), journal });
    tick(w);
    expect(incident(w, 'CONFIG_MISSING')).toMatchObject({ state: 'open', detail: 'the Journal sheet is missing; run Set up' });
  });
});
