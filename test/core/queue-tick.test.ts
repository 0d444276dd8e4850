// Core's processQueue tick with in-memory ports: settings, failures, side conditions and triage, decided in one place.
import { describe, expect, it } from 'vitest';
import { codedError } from '../../src/core/errors';
import { REJECTED_TOTALS_PROPERTY } from '../../src/core/intake/rejection-tally';
import type { Lock } from '../../src/core/ports';
import { runQueueTick, REJECTED_INCIDENT_THRESHOLD, type TickPorts, type Workspace } from '../../src/core/queue-tick';
import { NEXT_DUE_PROPERTY } from '../../src/core/tick-gate';
import { incidentKey } from '../../src/core/triage/incidents';
import { NEEDS_PERSON_GUIDE } from '../../src/core/triage/needs-person';
import { HOUR_MS, MINUTE_MS } from '../../src/core/time';
import { handleDelivery } from '../../src/core/intake/intake';
import { memoryIntake } from './intake/memory-intake';
import { FakeClock, fixedRandom, MemoryAudit, MemoryConfig, MemoryGemini, MemoryMailer, MemoryQueue, MemoryTally, formConfig, MemoryProperties, pendingRow, T0 } from './memory-ports';

const SETTINGS = { GEMINI_API_KEY: 'AIzaSyTESTKEY0123456789abcdefghij', STAFF_EMAILS: 'duty@example.org', WEBHOOK_TOKEN: 'tok-0123456789abcdef-Qm7Xw2Vn5Rt8Yp' };

const freeLock = (): Lock => ({ tryLock: () => true, release: () => undefined });

interface TickWorld {
  ports: TickPorts;
  props: MemoryProperties;
  queue: MemoryQueue;
  mailer: MemoryMailer;
  clock: FakeClock;
  warnings: string[];
  spill: { chars: number; count: number };
  tally: MemoryTally;
  openWorkspace: () => Workspace;
}

function tickWorld(props: Record<string, string> = SETTINGS, rows = [pendingRow()]): TickWorld {
  const w = {
    props: new MemoryProperties(),
    queue: new MemoryQueue(rows),
    mailer: new MemoryMailer(),
    clock: new FakeClock(),
    warnings: [] as string[],
    spill: { chars: 0, count: 0 },
    tally: new MemoryTally(),
  } as TickWorld;
  w.props.values = { ...props };
  w.openWorkspace = () => ({
    queue: w.queue,
    config: new MemoryConfig([formConfig()]),
    gemini: new MemoryGemini(),
    audit: new MemoryAudit(),
    drainSpill: () => undefined,
    readPayload: (row) => row.payload,
    intakeLock: freeLock(),
    spreadsheetUrl: () => 'https://docs.google.com/spreadsheets/d/abc/edit',
    queueSheetId: () => 0,
    watchCapacity: () => undefined,
    tally: w.tally,
  });
  w.ports = {
    props: w.props,
    clock: w.clock,
    random: fixedRandom(0.5),
    mailer: w.mailer,
    spill: { size: () => w.spill.chars, count: () => w.spill.count },
    openWorkspace: () => w.openWorkspace(),
    dateKey: () => '2026-11-20',
    warn: (message) => void w.warnings.push(message),
  };
  return w;
}

function tick(w: TickWorld) {
  return runQueueTick(w.ports, w.props.getAll(), w.clock.now());
}

function incident(w: TickWorld, code: Parameters<typeof incidentKey>[0]): { state: string; detail: string; rows: number[] } | undefined {
  const stored = w.props.values[incidentKey(code)];
  return stored === undefined ? undefined : JSON.parse(stored);
}

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
    expect(subjects()).toEqual(['[formqueue] Deliveries rejected — 0 waiting, no user impact']);
    // The next day starts a new count: the old incident ends without mail, the new one is mailed once it has 10.
    for (let n = 0; n < 10; n++) handleDelivery({ token: 'no-token', body: '{"junk":true}' }, intake.deps);
    tick(w);
    expect(subjects()).toHaveLength(2);
    expect(w.mailer.outbox.filter((mail) => /Resolved/.test(mail.subject))).toEqual([]);
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
    expect(mail.body).toContain('      event_id e-failed · mail refused · MAIL_PERMANENT: Invalid email: mina@\n');
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

  it('a triage mail goes out once, and is recorded before the next one', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '' });
    tick(w);
    const staffMails = () => w.mailer.outbox.filter((mail) => mail.to.includes('duty@example.org'));
    expect(staffMails()).toHaveLength(1);
    w.clock.advance(60_000);
    tick(w);
    expect(staffMails()).toHaveLength(1);
  });
});
