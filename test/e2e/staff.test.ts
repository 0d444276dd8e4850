// The staff console end to end in the local runtime: setup, the on-edit guard and the menu, against the built bundle.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { GasHost } from '../../emulator/host.mjs';
import { BUNDLE_DIR, runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

interface Exec { status: string; value?: unknown; error?: { message: string }; logs: string[] }
interface SheetModel { note(r: number, c: number): string; validations: unknown[]; protections: { description: string; warningOnly: boolean }[]; cfRules: unknown[]; frozenRows: number }
interface Host {
  load(): Promise<unknown>;
  dispose(): Promise<void>;
  run(fn: string, args?: unknown[], opts?: Record<string, unknown>): Promise<Exec>;
  edit(e: { sheet: string; a1: string; value: string; user?: string }): Promise<Exec[]>;
  sheetJson(name: string): { header: unknown[]; rows: unknown[][] } | null;
  loadSheet(name: string, header: string[], rows: unknown[][]): unknown;
  tick(): Promise<Exec[]>;
  triggers: { handler: string; type: string; everyMinutes?: number }[];
  outbox: unknown[];
  properties: { get(k: string): string | null; getAll(): Record<string, string> };
  ui: { dialogs: { kind: string; title: string | null; prompt?: string; content?: string }[]; toasts: { message: string }[]; responses: unknown[] };
  ss: { byName(name: string): SheetModel | null };
}

const ANA = 'ana@example.org';
const BOB = 'bob@example.org';
/** Recent, so processQueue's archiving (finished rows older than ARCHIVE_AFTER_DAYS) leaves the seeded rows in place. */
const T = Date.now() - 3600_000;

/** A Queue row in header order; only the columns a test cares about are given. */
function queueRow(fields: Partial<Record<(typeof QUEUE_HEADERS)[number], unknown>>): unknown[] {
  return QUEUE_HEADERS.map((header) => fields[header] ?? '');
}

function seededRows(): unknown[][] {
  const base = (n: number) => ({ event_id: `ev-${n}`, received_at: new Date(T), form_id: 'f1', recipient: `r${n}@example.com`, submission: 'Q: a', updated_at: new Date(T) });
  return [
    queueRow({ ...base(2), status: 'SENT', result: 'Hello', sent_at: new Date(T), mail_ref: 'FQ-AAAAAA' }),
    queueRow({ ...base(3), status: 'AWAITING_APPROVAL', result: 'Draft reply' }),
    queueRow({ ...base(4), status: 'FAILED', attempts: 5, error: 'GEMINI_BLOCKED: SAFETY' }),
    queueRow({ ...base(5), status: 'NEEDS_REVIEW', result: 'Maybe sent', mail_ref: 'FQ-BBBBBB', error: 'MAIL_UNKNOWN: killed' }),
  ];
}

describe('staff console in the runtime', () => {
  let host: Host;

  beforeEach(async () => {
    host = new (GasHost as unknown as new (o: object) => Host)({ bundleDir: BUNDLE_DIR, spreadsheetId: 'sheet-staff', activeUserEmail: 'owner@example.org', executionTimeoutMs: 20000 });
    await host.load();
    const setup = await host.run('setup', [], { kind: 'editor' });
    expect(setup.status, JSON.stringify(setup.error)).toBe('ok');
  });

  afterEach(async () => {
    await host.dispose();
  });

  const status = (row: number) => host.sheetJson('Queue')!.rows[row - 2][0];
  const column = (row: number, header: string) => host.sheetJson('Queue')!.rows[row - 2][QUEUE_HEADERS.indexOf(header as never)];
  const logRows = () => host.sheetJson('Log')!.rows;

  it('setup twice leaves one trigger of each kind, one default Config row, and reports what is missing', async () => {
    const second = await host.run('setup', [], { kind: 'editor' });
    expect(second.status).toBe('ok');
    // Without TYPEFORM_TOKEN, Set up says missed deliveries cannot be recovered, and how to fix that.
    expect(String(second.value)).toContain('Missed Typeform deliveries cannot be recovered: TYPEFORM_TOKEN is not set');
    expect(host.triggers.map((t: any) => [t.handler, t.type, t.everyMinutes ?? (t.everyDays ? `${t.everyDays} day at ${t.atHour}` : undefined)])).toEqual([
      ['processQueue', 'CLOCK', 1],
      ['onEditInstallable', 'ON_EDIT', undefined],
      // installed always; without TYPEFORM_TOKEN it returns at once (docs/reconciliation.md)
      ['reconcileTypeform', 'CLOCK', '1 day at 6'],
      // the webhook watch, installed always too: without TYPEFORM_TOKEN one Script Properties read
      ['watchTypeformWebhook', 'CLOCK', 15],
    ]);
    for (const name of ['Queue', 'Config', 'Log', 'Rejected', 'Payloads', 'Archive', 'Tally']) expect(host.sheetJson(name)).not.toBeNull();
    expect(host.sheetJson('Queue')!.header).toEqual([...QUEUE_HEADERS]);
    expect(host.sheetJson('Config')!.rows.filter((row) => row[0] === '*')).toHaveLength(1);
    const queue = host.ss.byName('Queue')!;
    expect(queue.frozenRows).toBe(1);
    expect(queue.cfRules).toHaveLength(12);
    expect(queue.protections.every((p) => p.warningOnly && p.description.startsWith('formqueue: '))).toBe(true);
    expect(queue.protections).toHaveLength(4);
    const report = String(second.value);
    expect(report).toMatch(/MISSING: Script Property GEMINI_API_KEY/);
    expect(report).toMatch(/MISSING: Script Property STAFF_EMAILS/);
    expect(host.properties.get('WEBHOOK_TOKEN')).toMatch(/^[0-9a-f]{64}$/);
    expect(host.properties.get('SPREADSHEET_ID')).toBe('sheet-staff');
  });

  it('a respondent answer starting with = stays text in a Queue column after setup', async () => {
    host.loadSheet('Queue', [...QUEUE_HEADERS], seededRows());
    await host.edit({ sheet: 'Queue', a1: 'G3', value: '=1+1', user: ANA });
    expect(column(3, 'submission')).toBe('=1+1');
  });

  describe('with seeded rows', () => {
    beforeEach(() => {
      host.loadSheet('Queue', [...QUEUE_HEADERS], seededRows());
    });

    it('SENT → PENDING is put back with a note saying why, logged, and nothing is resent', async () => {
      const [run] = await host.edit({ sheet: 'Queue', a1: 'A2', value: 'PENDING', user: ANA });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      expect(status(2)).toBe('SENT');
      expect(host.ss.byName('Queue')!.note(2, 1)).toMatch(/put back "SENT".*ana@example\.org.*already mailed/);
      expect(logRows().at(-1)!.slice(1, 5)).toEqual(['ev-2', 'SENT', 'SENT', ANA]);
      await host.tick();
      expect(host.outbox).toHaveLength(0);
      expect(status(2)).toBe('SENT');
    });

    it('a person clearing sent_at of a SENT row: it is put back, with a note and a Log line, and nothing is mailed', async () => {
      const [run] = await host.edit({ sheet: 'Queue', a1: 'M2', value: '', user: ANA });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      expect(Math.floor(new Date(column(2, 'sent_at') as string).getTime() / 1000)).toBe(Math.floor(T / 1000));
      expect(host.ss.byName('Queue')!.note(2, 13)).toMatch(/^formqueue put back sent_at .*ana@example\.org.*memory of this row/);
      expect(logRows().at(-1)!.slice(1, 5)).toEqual(['ev-2', 'SENT', 'SENT', ANA]);
      await host.tick();
      expect(host.outbox).toHaveLength(0);
    });

    it('a person typing another event_id over a row: the row keeps its own, so it stays one submission', async () => {
      const [run] = await host.edit({ sheet: 'Queue', a1: 'B5', value: 'ev-2', user: ANA });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      expect(column(5, 'event_id')).toBe('ev-5');
      expect(logRows().at(-1)!.slice(1, 5)).toEqual(['ev-5', 'NEEDS_REVIEW', 'NEEDS_REVIEW', ANA]);
    });

    it('an approval the system acted on before the guard ran is left alone: a SENDING claim is never put back', async () => {
      // Staff approve row 3; before the on-edit execution reads the sheet, processing claims the row for sending.
      const editing = host.edit({ sheet: 'Queue', a1: 'A3', value: 'APPROVED', user: ANA });
      const claimed = seededRows();
      claimed[1][QUEUE_HEADERS.indexOf('status')] = 'SENDING';
      claimed[1][QUEUE_HEADERS.indexOf('claimed_at')] = new Date(T);
      host.loadSheet('Queue', [...QUEUE_HEADERS], claimed);
      const [run] = await editing;
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      expect(status(3)).toBe('SENDING');
      expect(column(3, 'claimed_at')).not.toBe('');
    });

    it('the Log records every move with the staff member who made it', async () => {
      await host.edit({ sheet: 'Queue', a1: 'A3', value: 'APPROVED', user: ANA });
      const skip = await host.run('menuSkipSelected', [], { kind: 'menu', user: BOB, activeRange: { sheet: 'Queue', a1: 'C4' } });
      expect(skip.status, JSON.stringify(skip.error)).toBe('ok');
      expect(status(3)).toBe('APPROVED');
      expect(status(4)).toBe('SKIPPED');
      expect(logRows().map((row) => row.slice(1, 5))).toEqual([
        ['ev-3', 'AWAITING_APPROVAL', 'APPROVED', ANA],
        ['ev-4', 'FAILED', 'SKIPPED', BOB],
      ]);
      expect(host.ui.dialogs.at(-1)!.prompt).toMatch(/^Skipped: 1 row \(4\)/);
      expect(host.properties.get('FQ_DIRTY')).not.toBeNull();
    });

    it('Mark selected as sent closes a NEEDS_REVIEW row without mailing, and leaves the others', async () => {
      const run = await host.run('menuMarkSent', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Queue', a1: 'A2:A5' } });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      expect([status(2), status(3), status(4), status(5)]).toEqual(['SENT', 'AWAITING_APPROVAL', 'SENT', 'SENT']);
      expect(column(5, 'sent_at')).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(column(2, 'sent_at')).toBe(new Date(T).toISOString());
      expect(logRows().map((row) => [row[1], row[5]])).toEqual([
        // The line is the send ledger's record too (send-ledger.ts): the sent_at a later run would put back.
        ['ev-4', expect.stringMatching(new RegExp(`^marked sent by ${ANA} after checking by hand \\[ledger: (mail_ref=\\S+ )?sent_at=\\d{4}-`))],
        ['ev-5', expect.stringMatching(new RegExp(`^marked sent by ${ANA} after checking by hand \\[ledger: (mail_ref=\\S+ )?sent_at=\\d{4}-`))],
      ]);
      expect(host.ui.dialogs.at(-1)!.prompt).toMatch(/Marked as sent: 2 rows \(4, 5\)[\s\S]*row 2: already SENT[\s\S]*row 3: is AWAITING_APPROVAL/);
      await host.tick();
      expect(host.outbox).toHaveLength(0);
    });

    // A Ctrl/Cmd-click selection is several ranges (Spreadsheet.getActiveRangeList); every one of them counts.
    it('a menu action acts on every range of a multi-range selection and on nothing between them', async () => {
      const run = await host.run('menuMarkSent', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Queue', a1: 'A2,B4:C5' } });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      expect([status(2), status(3), status(4), status(5)]).toEqual(['SENT', 'AWAITING_APPROVAL', 'SENT', 'SENT']);
      const message = String(host.ui.dialogs.at(-1)!.prompt);
      expect(message).toMatch(/Marked as sent: 2 rows \(4, 5\)[\s\S]*row 2: already SENT/);
      expect(message).not.toMatch(/row 3/);
    });

    it('Retry selected puts FAILED back to PENDING with attempts reset', async () => {
      await host.run('menuRetrySelected', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Queue', a1: 'B4' } });
      expect(status(4)).toBe('PENDING');
      expect(column(4, 'attempts')).toBe(0);
      expect(column(4, 'error')).toBe('');
    });

    it('editing result is put back outside AWAITING_APPROVAL / READY and stands inside', async () => {
      await host.edit({ sheet: 'Queue', a1: 'L2', value: 'Rewritten after sending', user: ANA });
      expect(column(2, 'result')).toBe('Hello');
      expect(host.ss.byName('Queue')!.note(2, 12)).toMatch(/this row is SENT/);
      await host.edit({ sheet: 'Queue', a1: 'L3', value: 'Better reply', user: ANA });
      expect(column(3, 'result')).toBe('Better reply');
      expect(logRows().at(-1)!.slice(1, 5)).toEqual(['ev-3', 'AWAITING_APPROVAL', 'AWAITING_APPROVAL', ANA]);
    });

    it('clearing a status cell is allowed by Sheets but put back by the guard', async () => {
      await host.edit({ sheet: 'Queue', a1: 'A4', value: '', user: ANA });
      expect(status(4)).toBe('FAILED');
    });

    it('a typo in the status column is refused by the dropdown itself', async () => {
      await expect(host.edit({ sheet: 'Queue', a1: 'A4', value: 'PENDNG', user: ANA })).rejects.toThrow(/data validation/);
      expect(status(4)).toBe('FAILED');
    });
  });

  it('Accept rejected delivery queues the body under the cursor once', async () => {
    const body = readFileSync(new URL('../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8');
    host.loadSheet('Rejected', ['at', 'reason', 'form_id', 'event_id', 'body'], [[new Date(T), 'unauthorized: wrong token', '', '', body]]);
    const accept = () => host.run('menuAcceptRejected', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Rejected', a1: 'B2' } });
    expect((await accept()).status).toBe('ok');
    expect(host.ui.dialogs.at(-1)!.prompt).toMatch(/^Row 2 of Rejected: Event .* was added to Queue as PENDING/);
    expect(host.sheetJson('Queue')!.rows.map((row) => row[0])).toEqual(['PENDING']);
    await accept();
    expect(host.ui.dialogs.at(-1)!.prompt).toMatch(/^Row 2 of Rejected: Nothing added: event .* is already in Queue or Archive/);
    expect(host.sheetJson('Queue')!.rows).toHaveLength(1);
  });

  it('Accept rejected delivery on a partial response says it was rejected again as a partial, and adds nothing to Queue', async () => {
    const body = readFileSync(new URL('../fixtures/typeform/partial-response.json', import.meta.url), 'utf8');
    host.loadSheet('Rejected', ['at', 'reason', 'form_id', 'event_id', 'body'], [[new Date(T), 'partial_response: event_type form_response_partial', '', '', body]]);
    const accept = await host.run('menuAcceptRejected', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Rejected', a1: 'B2' } });
    expect(accept.status).toBe('ok');
    const said = host.ui.dialogs.at(-1)!.prompt!;
    expect(said).toMatch(/^Row 2 of Rejected: Not queued — rejected again: event \S+ is a partial response \(form_response_partial\)/);
    expect(said).not.toContain('added to Queue');
    expect(host.sheetJson('Queue')!.rows).toEqual([]);
    expect(host.sheetJson('Rejected')!.rows).toHaveLength(2);
  });

  it('Accept rejected delivery of a form Config does not enable says so and names the form', async () => {
    await host.edit({ sheet: 'Config', a1: 'A2', value: 'OnlyThisForm', user: 'owner@example.org' });
    host.loadSheet('Rejected', ['at', 'reason', 'form_id', 'event_id', 'body'], [[new Date(T), 'unknown form', '', '', submission(1)]]);
    await host.run('menuAcceptRejected', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Rejected', a1: 'B2' } });
    expect(host.ui.dialogs.at(-1)!.prompt).toMatch(/^Row 2 of Rejected: Not queued — rejected again: unknown form: the Config sheet does not enable form "Wr1tE5sy"/);
    expect(host.sheetJson('Queue')!.rows).toEqual([]);
  });

  it('Set a Script Property… stores a checked KEY=VALUE, hides secrets in its answer, and refuses unknown keys', async () => {
    const setProperty = async (text: string) => {
      host.ui.responses.push({ button: 'OK', text });
      const run = await host.run('menuSetProperty', [], { kind: 'menu', user: ANA });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      return host.ui.dialogs.at(-1)!.prompt;
    };
    expect(await setProperty('STAFF_EMAILS=desk@example.org')).toBe('STAFF_EMAILS is set to desk@example.org.');
    expect(host.properties.get('STAFF_EMAILS')).toBe('desk@example.org');
    expect(await setProperty('GEMINI_API_KEY=AIzaMenuSecret0000000000000000000000000')).toBe(
      // This bare runtime has no Gemini to ask: the one-line test gets no answer, and the key is stored anyway.
      'GEMINI_API_KEY is set to (hidden). It could not be tried now (Gemini did not answer the one-line test clearly): formqueue → Self-test tries it again.',
    );
    expect(host.properties.get('GEMINI_API_KEY')).toBe('AIzaMenuSecret0000000000000000000000000');
    expect(JSON.stringify(host.ui.dialogs)).not.toContain('AIzaMenuSecret');
    expect(await setProperty('GEMINI_CONCURRENCY=99')).toMatch(/GEMINI_CONCURRENCY must be a whole number from 1 to 20/);
    expect(host.properties.get('GEMINI_CONCURRENCY')).toBeNull();
    expect(await setProperty('NOT_A_SETTING=1')).toMatch(/not a property formqueue reads/);
    expect(await setProperty('STAFF_EMAILS=AIzaMenuSecret1111111111111111111111')).not.toContain('AIzaMenuSecret1111');
  });

  it('Set a Script Property… asks before saving a model id or an API key that does not look like one, and saves nothing on NO', async () => {
    const before = host.properties.get('GEMINI_API_KEY');
    const ask = async (text: string, answer: string) => {
      host.ui.responses.push({ button: 'OK', text }, answer);
      const run = await host.run('menuSetProperty', [], { kind: 'menu', user: ANA });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      return host.ui.dialogs.slice(-2).map((dialog) => dialog.prompt ?? '');
    };
    const [question, declined] = await ask('GEMINI_API_KEY=AIzaCutShort', 'NO');
    expect(question).toMatch(/^That does not look like a Gemini API key: .* is 12 characters\. Saved as it is, no reply can be written/);
    expect(declined).toBe('Nothing changed.');
    expect(host.properties.get('GEMINI_API_KEY')).toBe(before);
    expect(JSON.stringify(host.ui.dialogs)).not.toContain('AIzaCutShort');
    const [modelQuestion, saved] = await ask('GEMINI_MODEL=gpt-4o', 'YES');
    expect(modelQuestion).toMatch(/^"gpt-4o" does not look like a Gemini model id \(gemini-… or gemma-…/);
    expect(saved).toBe('GEMINI_MODEL is set to gpt-4o. It does not look right: correct it here if replies fail.');
    expect(host.properties.get('GEMINI_MODEL')).toBe('gpt-4o');
  });

  it('Set a Script Property… asks before replacing WEBHOOK_TOKEN, moves the old one to WEBHOOK_TOKEN_PREVIOUS, and refuses a short one', async () => {
    const before = String(host.properties.get('WEBHOOK_TOKEN'));
    const fresh = 'Nw5-8rT2kYp6Vb1Xq9Lm3Zs7Hd4Gc0Fa';
    const setProperty = async (text: string, answer?: string) => {
      host.ui.responses.push({ button: 'OK', text });
      if (answer) host.ui.responses.push(answer);
      const run = await host.run('menuSetProperty', [], { kind: 'menu', user: ANA });
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      return host.ui.dialogs.slice(-2).map((dialog) => dialog.prompt ?? '');
    };
    expect((await setProperty('WEBHOOK_TOKEN=letmein'))[1]).toMatch(/^WEBHOOK_TOKEN is 7 characters long; it must be at least 32 random characters/);
    const [question, declined] = await setProperty(`WEBHOOK_TOKEN=${fresh}`, 'NO');
    expect(question).toMatch(/^Replace WEBHOOK_TOKEN\?/);
    expect(declined).toBe('Nothing changed.');
    expect(host.properties.get('WEBHOOK_TOKEN')).toBe(before);
    const [, done] = await setProperty(`WEBHOOK_TOKEN=${fresh}`, 'YES');
    expect(done).toMatch(/^WEBHOOK_TOKEN replaced \(hidden\)\. The old token is in WEBHOOK_TOKEN_PREVIOUS/);
    expect(host.properties.get('WEBHOOK_TOKEN')).toBe(fresh);
    expect(host.properties.get('WEBHOOK_TOKEN_PREVIOUS')).toBe(before);
    expect(JSON.stringify(host.ui.dialogs)).not.toContain(fresh);
    expect(JSON.stringify(host.ui.dialogs)).not.toContain(before);
  });

  it('onOpen builds the formqueue menu; Pause and Resume flip PAUSED; Queue health opens a dialog', async () => {
    host.loadSheet('Queue', [...QUEUE_HEADERS], seededRows());
    expect((await host.run('onOpen', [], { kind: 'menu' })).status).toBe('ok');
    await host.run('menuPause', [], { kind: 'menu', user: ANA });
    expect(host.properties.get('PAUSED')).toBe('true');
    const health = await host.run('menuQueueHealth', [], { kind: 'menu', user: ANA });
    expect(health.status, JSON.stringify(health.error)).toBe('ok');
    const dialog = host.ui.dialogs.at(-1)!;
    expect(dialog.kind).toBe('modal');
    expect(dialog.content).toMatch(/Paused[\s\S]*AWAITING_APPROVAL/);
    await host.run('menuResume', [], { kind: 'menu', user: ANA });
    expect(host.properties.get('PAUSED')).toBeNull();
    const now = await host.run('menuProcessNow', [], { kind: 'menu', user: ANA });
    expect(now.status, JSON.stringify(now.error)).toBe('ok');
    expect(host.ui.dialogs.at(-1)).toMatchObject({ kind: 'alert', title: 'Process now' });
  });
});

/** Staff scenarios that need the whole pipeline: deliveries over HTTP, the offline Gemini, processQueue and the outbox. */
describe('staff console with intake and processing', () => {
  let rt: Runtime;
  const RESPONDENT = 'mina.okafor@example.com'; // the essay fixture's email answer
  const DAY_MS = 86400000;

  beforeEach(async () => {
    rt = await freshRuntime();
  });

  /** Mails to the respondent only; triage mail to STAFF_EMAILS lands in the same outbox. */
  const replies = () => (rt.host.outbox as { to: string; subject: string; body: string }[]).filter((mail) => mail.to === RESPONDENT);
  const menu = (fn: string, a1?: string) => rt.host.run(fn, [], { kind: 'menu', user: ANA, ...(a1 ? { activeRange: { sheet: 'Queue', a1 } } : {}) });

  it('Set a Script Property… tries a new Gemini key or model with one tiny request: a key Gemini refuses and a model it does not know are asked about before they are stored', async () => {
    const setProperty = async (text: string, answer?: string) => {
      rt.host.ui.responses.push({ button: 'OK', text });
      if (answer) rt.host.ui.responses.push(answer);
      const run = await menu('menuSetProperty');
      expect(run.status, JSON.stringify(run.error)).toBe('ok');
      return rt.host.ui.dialogs.slice(answer ? -2 : -1).map((dialog: { prompt?: string }) => dialog.prompt ?? '');
    };
    const asked = () => rt.gemini.requests.length;
    const before = asked();
    const key = `AIza${'k'.repeat(35)}`;
    expect(await setProperty(`GEMINI_API_KEY=${key}`)).toEqual([`GEMINI_API_KEY is set to (hidden). Gemini answered a one-line test with this key and gemini-3.5-flash.`]);
    expect(asked()).toBe(before + 1);
    expect(rt.host.properties.get('GEMINI_API_KEY')).toBe(key);
    // Gemini answers 400 API_KEY_INVALID (its real body): asked first; NO stores nothing.
    const badKey = rt.host.faults.add({ target: 'gemini', status: 400 });
    const [question, declined] = await setProperty(`GEMINI_API_KEY=AIza${'b'.repeat(35)}`, 'NO');
    expect(question).toMatch(/^Gemini refused this API key in a one-line test/);
    expect(declined).toBe('Nothing changed.');
    expect(rt.host.properties.get('GEMINI_API_KEY')).toBe(key);
    rt.host.faults.remove(badKey.id);
    // A model Gemini does not serve (its 404 names the model): asked first; YES stores it and says so.
    rt.host.faults.add({ target: 'gemini', status: 404, model: 'gemini-0.9-retired' });
    const [notKnown, saved] = await setProperty('GEMINI_MODEL=gemini-0.9-retired', 'YES');
    expect(notKnown).toMatch(/^Gemini does not know the model gemini-0\.9-retired for this key/);
    expect(saved).toBe('GEMINI_MODEL is set to gemini-0.9-retired. Gemini does not know the model gemini-0.9-retired.');
    expect(rt.host.properties.get('GEMINI_MODEL')).toBe('gemini-0.9-retired');
    expect(JSON.stringify(rt.host.ui.dialogs)).not.toContain(key);
  });

  it('Retry selected on a FAILED row regenerates it and mails it exactly once', async () => {
    rt.host.faults.add({ target: 'gemini', blocked: true, count: 1 });
    expect(await rt.deliver(submission(1))).toMatchObject({ ok: true, queued: true });
    const first = await rt.run('processQueue');
    expect(first.status, JSON.stringify(first.error)).toBe('ok');
    expect(rt.queue()[0]).toMatchObject({ status: 'FAILED', result: '', sent_at: '' });
    expect(String(rt.queue()[0].error)).toMatch(/blocked/i);
    expect(replies()).toHaveLength(0);
    const requestsBefore = rt.gemini.requests.length;

    const retry = await menu('menuRetrySelected', 'F2');
    expect(retry.status, JSON.stringify(retry.error)).toBe('ok');
    expect(rt.host.ui.dialogs.at(-1)!.prompt).toMatch(/^Queued for a new try: 1 row \(2\)\.[\s\S]*next run/);
    expect(rt.queue()[0]).toMatchObject({ status: 'PENDING', attempts: 0, error: '' });

    const second = await rt.run('processQueue');
    expect(second.status, JSON.stringify(second.error)).toBe('ok');
    const row = rt.queue()[0];
    expect(row.status).toBe('SENT');
    expect(rt.gemini.requests.length).toBe(requestsBefore + 1); // the offline Gemini wrote it this time
    expect(String(row.result)).toMatch(/^Dear Mina Okafor,/);
    expect(replies()).toHaveLength(1);
    // The plain body is the result with its Markdown marks taken out.
    expect(replies()[0].body).toContain(String(row.result).replace(/\*\*/g, ''));
    expect(replies()[0].body).toContain(String(row.mail_ref));

    // Later runs, a clock tick and another Retry of the now SENT row send nothing more.
    await menu('menuRetrySelected', 'A2');
    expect(rt.host.ui.dialogs.at(-1)!.prompt).toMatch(/^Queued for a new try: no rows\.[\s\S]*row 2: is SENT; this item acts only on FAILED or NEEDS_REVIEW rows/);
    await menu('menuProcessNow');
    await rt.host.tick();
    expect(replies()).toHaveLength(1);
    expect(rt.queue()[0].status).toBe('SENT');
    const log = rt.sheet('Log').rows.map((cells) => cells.slice(2, 5));
    expect(log).toContainEqual(['FAILED', 'PENDING', ANA]);
  });

  it('archiving moves old finished rows to Archive in one run, and dedupe still sees them', async () => {
    for (const n of [11, 12, 13]) expect(await rt.deliver(submission(n))).toMatchObject({ ok: true, queued: true });
    await rt.run('processQueue');
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT']);
    expect(replies()).toHaveLength(3);
    const [eleven, , thirteen] = rt.queue().map((row) => String(row.event_id));

    // Rows 2 and 4 (not adjacent) finished 40 days ago: received_at, sent_at and updated_at back-dated.
    const old = new Date(Date.now() - 40 * DAY_MS).toISOString().slice(0, 10);
    // Written as a script would (no on-edit trigger): sent_at is formqueue's memory, and a person's edit is put back.
    const queueSheet = (rt.host as any).ss.byName('Queue');
    for (const row of [2, 4]) for (const column of [3, 13, 16]) queueSheet.enter(row, column, `${old} 09:00`, (rt.host as any).ss.timeZone, Date.now());
    expect(rt.sheet('Archive').rows).toHaveLength(0);

    const run = await menu('menuProcessNow'); // Process now is processQueue after marking the queue dirty
    expect(run.status, JSON.stringify(run.error)).toBe('ok');
    expect(rt.sheet('Archive').rows.map((cells) => [cells[0], cells[1]])).toEqual([
      ['SENT', eleven],
      ['SENT', thirteen],
    ]);
    expect(rt.queue().map((row) => row.event_id)).toEqual(['01E2E000000000000000000012']);
    expect(run.calls['Sheet.deleteRows']).toBe(2); // one per contiguous block, bottom-up, in the same run

    // The seen-mark in the script cache lasts 6 hours; past it, only the sheets can recognise a redelivery.
    rt.host.advanceClock(7 * 3600_000);
    expect(await rt.deliver(submission(11))).toEqual({ ok: true, duplicate: true, event_id: eleven });
    const post = (rt.host.executions as { functionName: string; calls: Record<string, number> }[]).filter((e) => e.functionName === 'doPost').at(-1)!;
    expect(post.calls['TextFinder.findNext']).toBeGreaterThan(0); // answered by the sheets, not by the cache
    expect(rt.queue()).toHaveLength(1);

    // The second layer: a row with an archived event_id that reaches the Queue anyway is collapsed, never mailed.
    const queue = rt.sheet('Queue');
    const copy = queue.rows[0].slice();
    copy[QUEUE_HEADERS.indexOf('event_id')] = thirteen;
    copy[QUEUE_HEADERS.indexOf('response_token')] = 'tok-copy';
    copy[QUEUE_HEADERS.indexOf('status')] = 'PENDING';
    for (const header of ['result', 'sent_at', 'mail_ref'] as const) copy[QUEUE_HEADERS.indexOf(header)] = '';
    rt.host.loadSheet('Queue', queue.header as string[], [queue.rows[0], copy]);
    await menu('menuProcessNow');
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'DUPLICATE']);
    expect(replies()).toHaveLength(3);
  });
});
