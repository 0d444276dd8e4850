// GasHost: owns all shared state and runs each Apps Script execution in its own worker (docs/runtime.md#how-it-works).
import { EventEmitter } from 'node:events';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { resolve as resolvePath } from 'node:path';
import { setTimeout, clearTimeout } from 'node:timers';
import { SheetModel, SpreadsheetModel, a1Of, displayValue, parseA1 } from './spreadsheet-model.mjs';
import { GasError } from './errors.mjs';
import { applyStaffEdit } from './staff-edits.mjs';
import { Faults } from './faults.mjs';
import { loadState, saveState } from './persist.mjs';
import { LockTable } from './services/lock.mjs';
import { PropertyStore, storeHandlers } from './services/stores.mjs';
import { rangeHandlers } from './services/range.mjs';
import { spreadsheetHandlers } from './services/spreadsheet.mjs';
import { fetchHandlers } from './services/fetch.mjs';
import { mailHandlers, remainingQuota } from './services/mail.mjs';
import { gmailApiHandlers } from './services/gmail-api.mjs';
import { uiHandlers } from './services/ui.mjs';
import { scriptHandlers } from './services/script.mjs';
import { lockHandlers } from './services/lock.mjs';
import { cellsOf, createLatency } from './latency.mjs';
import { statSync } from 'node:fs';
import { RuntimeClock, clockEvent } from './runtime-clock.mjs';
import { identityOf, visibleActiveUser } from './identity.mjs';
import { advancedServices, deniedCalls, grantedScopes } from './scopes.mjs';
import { resolveWorlds } from './worlds.mjs';
import { sharedPool } from './worker-pool.mjs';
import { ACCOUNT_LIMITS, TRIGGER_RUNTIME_EXCEEDED, restoreTable, resetsAt, spend, usedIn } from './daily-quotas.mjs';

const SHEETS_CLASSES = new Set(['SpreadsheetApp', 'Spreadsheet', 'Sheet', 'Range', 'TextFinder', 'Protection']);
const MAX_EXECUTIONS = 200;
const MAX_RTT_SAMPLES = 200000;
// "Simultaneous executions: 30 / user" (https://developers.google.com/apps-script/guides/services/quotas). The surplus
// is refused at once, not queued: a web-app caller gets HTTP 200 with Google's HTML error page saying WEBAPP_REFUSAL
// (tanaikech/taking-advantage-of-Web-Apps-with-google-apps-script README, error table; tanaikech/RunAll README);
// any other run fails with the quotas page's wording, RUN_REFUSAL.
export const MAX_SIMULTANEOUS_PER_USER = 30;
export const WEBAPP_REFUSAL = 'Service invoked too many times in a short time: exec qps. Try Utilities.sleep(1000) between calls.';
export const RUN_REFUSAL = 'There are too many scripts running simultaneously for this Google user account.';

const DEFAULTS = {
  bundleDir: 'dist', dataDir: null, scriptProperties: {}, executionTimeoutMs: 360000, fetchTimeoutMs: 60000,
  // account: 'consumer' (gmail.com) or 'workspace': sets the daily quotas' defaults (daily-quotas.mjs); each can be set
  // on its own: mailDailyQuota (recipients), triggerRuntimeDailyMs (triggers' total runtime), urlFetchDailyQuota (calls).
  account: 'consumer', mailDailyQuota: null, triggerRuntimeDailyMs: null, urlFetchDailyQuota: null,
  ownerEmail: 'owner@example.com', timeZone: 'Etc/UTC', spreadsheetId: 'local-spreadsheet', webAppUrl: 'http://127.0.0.1:8787/exec',
  scriptId: 'local-script', saveDebounceMs: 200, latency: 'off', latencySeed: 1,
  // traceCalls: each execution record also lists its service calls in order (`trace`: { call, sheet, args }), for the
  // bench's breakdown of a run by step and for tests of call order. Observation only: no call behaves differently.
  traceCalls: false,
  // worlds: the reading of each platform answer Google does not document, e.g. { paste: 'value-only' } (worlds.mjs,
  // docs/runtime.md#worlds); a switch not named keeps its default reading.
  worlds: {},
};

export class GasHost extends EventEmitter {
  constructor(options = {}) {
    super();
    this.pool = sharedPool;
    this.handlers = { ...spreadsheetHandlers, ...rangeHandlers, ...lockHandlers, ...storeHandlers, ...fetchHandlers, ...mailHandlers, ...gmailApiHandlers, ...scriptHandlers, ...uiHandlers };
    this.init(options);
  }

  /**
   * Every piece of the runtime's state, as a new host with `options` holds it: the constructor and reset() share this,
   * so a reset cannot forget what a new piece of state adds here.
   */
  init(options) {
    this.options = options;
    this.saveTimer = null;
    this.bundleKb = undefined; // the bundle's size, read at the first execution with --latency
    // an option passed as undefined (e.g. an absent CLI flag) keeps its default
    const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    // activeUserEmail is the option's former name: it always meant the deployer.
    if (given.activeUserEmail !== undefined && given.ownerEmail === undefined) given.ownerEmail = given.activeUserEmail;
    this.opts = { ...DEFAULTS, ...given };
    this.opts.bundleDir = resolvePath(this.opts.bundleDir);
    // What the bundle's appsscript.json does not grant fails in every execution, as on Google.
    this.grantedScopes = grantedScopes(this.opts.bundleDir);
    this.deniedCalls = deniedCalls(this.grantedScopes);
    // Advanced services exist in a script only when its manifest enables them (dependencies.enabledAdvancedServices).
    this.advancedServices = advancedServices(this.opts.bundleDir);
    this.ss = SpreadsheetModel.fresh(this.opts.spreadsheetId, this.opts.timeZone);
    this.properties = new PropertyStore(this.opts.scriptProperties);
    this.documentProperties = new PropertyStore();
    this.userProperties = new Map();
    this.caches = new Map();
    this.locks = new LockTable();
    this.outbox = [];
    this.inbox = []; // mail the accounts received: Gmail's delivery-failure notices (services/bounce-notice.mjs)
    this.triggers = [];
    const account = ACCOUNT_LIMITS[this.opts.account];
    if (!account) throw new Error(`account must be one of ${Object.keys(ACCOUNT_LIMITS).join(', ')}, got ${JSON.stringify(this.opts.account)}`);
    // Daily quotas per user, each a window opened by the user's first request and reset 24 h later (daily-quotas.mjs).
    this.mail = { quota: this.opts.mailDailyQuota ?? account.mailRecipients, users: {} }; // users: email → { since, used } (services/mail.mjs)
    this.limits = { triggerRuntimeMs: this.opts.triggerRuntimeDailyMs ?? account.triggerRuntimeMs, urlFetchCalls: this.opts.urlFetchDailyQuota ?? account.urlFetchCalls };
    this.daily = { triggerRuntime: {}, urlFetch: {} }; // email → { since, used }: ms of trigger runs, URL Fetch calls
    this.faults = new Faults(this);
    this.ui = { menus: [], dialogs: [], toasts: [], responses: [] };
    this.executions = [];
    this.live = new Map();
    this.rtts = [];
    this.seq = 0;
    this.time = new RuntimeClock();
    this.refusals = 0; // executions refused by the simultaneous-executions limit
    this.quotaRefusals = 0; // trigger runs refused because the user's daily trigger runtime is used up
    this.latency = createLatency(this.opts.latency, this.opts.latencySeed); // null with --latency off
    this.lastActivityAt = null; // host time an execution last started or ended (cold starts)
    this.worlds = resolveWorlds(this.opts.worlds); // throws on a switch or reading worlds.mjs does not list
  }

  /**
   * Returns the host to what `new GasHost(options)` is (default: the options it was made with), for a test file that
   * keeps one runtime and resets it between tests: running executions are ended first, then every piece of state is
   * made anew by init() (sheets, properties, caches, locks, triggers, outbox, inbox, quotas, faults, clock, worlds,
   * executions). Call load() after it, as after the constructor. Listeners stay: the HTTP front keeps serving it.
   * A host with a data folder is not reset (its saved state would come back at load()).
   */
  async reset(options = this.options) {
    if (this.opts.dataDir) throw new Error('reset() is for a host without a data folder');
    await this.dispose();
    this.init(options);
    return this;
  }

  get spreadsheetId() { return this.ss.id; }

  /** The deployer: the web app executes as this account (`--owner`), and so do runs nobody else started. */
  get owner() { return this.opts.ownerEmail; }

  /** Host time: real time plus an offset tests and POST /api/clock advance (cache TTLs, mail-quota day, scripts' Date). */
  now() { return this.time.now(); }
  get clockOffsetMs() { return this.time.offsetMs; }

  /**
   * Moves the runtime's time forward by ms, for the host and every execution, running ones included; clock triggers
   * due in the skipped minutes fire once on the next tick. Answers { skippedMinutes, dueOnNextTick: [trigger ids] }.
   */
  advanceClock(ms) {
    const moved = this.time.advance(ms, this.clockTriggers());
    this.markDirty();
    return moved;
  }

  clockTriggers() { return this.triggers.filter((t) => t.type === 'CLOCK'); }

  async load() {
    loadState(this);
    for (const [k, v] of Object.entries(this.opts.scriptProperties)) this.properties.set(k, v);
    return this;
  }

  async save() { clearTimeout(this.saveTimer); this.saveTimer = null; saveState(this); }

  markDirty() {
    if (!this.opts.dataDir || this.saveTimer) return;
    this.saveTimer = setTimeout(() => { this.saveTimer = null; saveState(this); }, this.opts.saveDebounceMs);
    this.saveTimer.unref?.();
  }

  /**
   * Runs a global function as a new execution in its own worker. Resolves with the execution record
   * once the worker has exited (so its locks are released and its fetches aborted by then).
   */
  run(functionName, args = [], runOpts = {}) {
    const kind = runOpts.kind ?? 'api';
    const id = `exec-${++this.seq}`;
    const trigger = runOpts.triggerUid ? this.triggers.find((t) => t.id === runOpts.triggerUid) ?? null : null;
    // The effective user owns the user lock, user properties/cache and the triggers this run sees or creates.
    const { effectiveUser, activeUser } = identityOf({ kind, person: runOpts.user, trigger, owner: this.owner });
    const userEmail = effectiveUser;
    const rec = {
      id, functionName, kind, user: activeUser, effectiveUser, status: 'running', value: undefined, logs: [], startedAt: new Date(this.now()).toISOString(), durationMs: 0,
      calls: {}, serviceCalls: 0, cellsRead: 0, cellsWritten: 0, fetches: 0, mailsSent: 0, spreadsheetOpened: false,
      ui: [], // every alert, prompt, toast, dialog and sidebar this execution showed, in order (services/ui.mjs)
    };
    if (runOpts.triggerUid) rec.triggerUid = runOpts.triggerUid;
    if (runOpts.origin) rec.origin = runOpts.origin; // who asked for the run beyond the bundle (the console's own health check)
    const st = { rec, userEmail, caller: kind === 'webapp' ? (runOpts.user ?? '') : null /* '' anonymous: the userLock world */, uiAnswers: [...(runOpts.uiAnswers ?? [])], dead: false, aborts: new Set(), settled: null, activeRange: null, activeSheetId: null };
    if (runOpts.activeRange) {
      const sh = this.ss.byName(runOpts.activeRange.sheet);
      if (!sh) return Promise.reject(new Error(`no sheet named ${runOpts.activeRange.sheet}`));
      // A selection of several ranges (Ctrl/Cmd-click) is "A2:A3,C5" or ["A2:A3","C5"]; the active range is the last one.
      const a1s = Array.isArray(runOpts.activeRange.a1) ? runOpts.activeRange.a1 : String(runOpts.activeRange.a1).split(',');
      st.activeRangeList = a1s.map((a1) => parseA1(String(a1).trim(), sh));
      st.activeRange = st.activeRangeList[st.activeRangeList.length - 1];
    }
    const triggerRun = isTriggerRun(kind, runOpts), refused = this.refusal(st, triggerRun);
    if (refused) return Promise.resolve(refused);
    const sab = new SharedArrayBuffer(4), flag = new Int32Array(sab);
    const { port1, port2 } = new MessageChannel();
    const info = { kind, activeUser, effectiveUser, denied: this.deniedCalls, advancedServices: this.advancedServices, timeZone: this.opts.timeZone, webAppUrl: this.opts.webAppUrl, scriptId: this.opts.scriptId, executionId: id, clockOffsetMs: this.clockOffsetMs };
    // clockBuffer is shared: a later advanceClock reaches this execution too; with the code cache a new thread skips compiling the bundle.
    Object.assign(info, { clockBuffer: this.time.buffer }, this.pool.codeCacheFor(resolvePath(this.opts.bundleDir, 'Code.js')));
    if (this.latency) info.startDelayMs = this.startLatency(st, this.seq);
    const t0 = process.hrtime.bigint();
    // A warm thread (worker-pool.mjs); the execution gets a fresh realm in it all the same.
    const worker = this.pool.take();
    worker.postMessage({ t: 'run', job: { bundleDir: this.opts.bundleDir, sab, port: port2, fn: functionName, args, info } }, [port2]);
    st.kill = (status, error) => {
      if (st.settled) return;
      st.settled = { status, error };
      st.killed = true;
      void worker.terminate(); // settled by the 'exit' handler below; a killed thread is never reused
    };
    this.live.set(id, st);
    const timer = setTimeout(() => st.kill('timeout', { name: 'Exception', message: 'Exceeded maximum execution time' }), runOpts.timeoutMs ?? this.opts.executionTimeoutMs);

    const onMessage = (msg) => {
      if (msg.t === 'log') { rec.logs.push(msg.level === 'info' ? msg.text : `[${msg.level}] ${msg.text}`); return; }
      if (msg.t === 'done') {
        if (!st.settled) st.settled = { status: msg.status, value: msg.value, error: msg.error };
        this.recordRtts(msg.rtts);
        if (msg.codeCache) this.pool.keepCodeCache(msg.codeCache.key, msg.codeCache.data);
        // Finished by itself: the thread goes back warm. A kill already under way ends it ('exit' settles).
        if (!st.killed) {
          settle(0);
          this.pool.give(worker);
        }
        return;
      }
      // dispatch turns every handler failure into a reply; nothing here awaits the chain.
      void this.dispatch(st, msg).then((reply) => {
        if (st.dead || reply === null) return;
        port1.postMessage(reply); // 1) enqueue the reply, 2) then wake the worker
        Atomics.add(flag, 0, 1);
        Atomics.notify(flag, 0);
      });
    };
    port1.on('message', onMessage);

    let settle = (_code) => undefined;
    const onError = (e) => { if (!st.settled) st.settled = { status: 'crash', error: { name: e.name || 'Error', message: e.message } }; };
    const onExit = (code) => {
      // 'exit' can overtake messages still queued on the port: drain them first.
      for (let m; !st.dead && (m = receiveMessageOnPort(port1)); ) if (m.message.t !== 'call') onMessage(m.message);
      settle(code);
    };
    worker.on('error', onError);
    worker.on('exit', onExit);
    st.finished = new Promise((resolve) => {
      settle = (code) => {
        if (st.dead) return;
        worker.off('error', onError);
        worker.off('exit', onExit);
        clearTimeout(timer);
        st.dead = true;
        port1.close();
        resolve(this.recordEnd(st, code, { t0, triggerRun }));
      };
    });
    return st.finished;
  }

  /** An execution that ended (by itself, killed, or its thread crashed): locks freed, its record completed and kept. */
  recordEnd(st, code, { t0, triggerRun }) {
    const rec = st.rec;
    for (const ac of st.aborts) ac.abort();
    this.locks.releaseAll(rec.id);
    this.live.delete(rec.id);
    const s = st.settled ?? { status: 'crash', error: { name: 'Error', message: `worker exited with code ${code}` } };
    rec.status = s.status;
    rec.value = s.value;
    if (s.error) rec.error = s.error;
    rec.durationMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (st.latency) this.finishLatency(st);
    if (triggerRun) this.countTriggerRuntime(rec, st.userEmail);
    this.executions.push(rec);
    if (this.executions.length > MAX_EXECUTIONS) this.executions.splice(0, this.executions.length - MAX_EXECUTIONS);
    this.markDirty();
    this.emit('execution', rec);
    return rec;
  }

  /** Executions running now whose simultaneous-executions quota is `user`'s. */
  simultaneousFor(user) {
    let n = 0;
    for (const st of this.live.values()) if (quotaUserOf(st) === user) n += 1;
    return n;
  }

  /**
   * Records a run refused before it started, so no script code ran: by the simultaneous-executions limit (counted in
   * `refusals`), or with `message` by a used-up daily quota.
   */
  refuse(rec, message = rec.kind === 'webapp' ? WEBAPP_REFUSAL : RUN_REFUSAL, { counted = true } = {}) {
    if (counted) this.refusals += 1;
    rec.status = 'refused';
    rec.error = { name: 'Exception', message };
    this.executions.push(rec);
    if (this.executions.length > MAX_EXECUTIONS) this.executions.splice(0, this.executions.length - MAX_EXECUTIONS);
    this.emit('execution', rec);
    return rec;
  }

  /**
   * The record of a run refused before it starts, or null to start it: past 30 simultaneous executions of its user, or
   * a trigger run once its user's trigger runtime for the day is used up (daily-quotas.mjs).
   */
  refusal(st, triggerRun) {
    if (this.simultaneousFor(quotaUserOf(st)) >= MAX_SIMULTANEOUS_PER_USER) return this.refuse(st.rec);
    if (!triggerRun || this.remainingTriggerRuntimeMs(st.userEmail) > 0) return null;
    this.quotaRefusals += 1;
    return this.refuse(st.rec, TRIGGER_RUNTIME_EXCEEDED, { counted: false });
  }

  /** Triggers' total runtime: what the run took (as modeled on Google with --latency), in the window its start opened. */
  countTriggerRuntime(rec, user) {
    spend(this.daily.triggerRuntime, user, Date.parse(rec.startedAt), rec.modeledMs ?? rec.durationMs);
  }

  /** One service call: always answers (value or error) unless the execution is being killed. */
  async dispatch(st, req) {
    const key = `${req.c}.${req.m}`;
    const rec = st.rec;
    rec.calls[key] = (rec.calls[key] ?? 0) + 1;
    rec.serviceCalls += 1;
    if (this.opts.traceCalls) (rec.trace ??= []).push({ call: key, sheet: this.ss.sheets.find((s) => s.id === req.h?.sid)?.name ?? null, args: req.a ?? [] });
    try {
      const handler = this.handlers[req.c]?.[req.m];
      if (!handler) throw new GasError(`not emulated: ${key}`, 'Error');
      if (SHEETS_CLASSES.has(req.c)) {
        await this.faults.holdSheetsCall(rec, key, this.ss.sheets.find((s) => s.id === req.h?.sid)?.name);
        const injected = this.faults.sheetsError(rec);
        if (injected) throw new GasError(injected);
      }
      const value = await this.paced(st, req, key, () => handler({ host: this, exec: rec, st }, req.h, req.a ?? []));
      return { v: value === undefined ? null : value };
    } catch (e) {
      if (e?.code === 'KILL_EXECUTION') { st.kill(e.status, e.error); return null; }
      return { e: { name: e?.code === 'GAS_EXCEPTION' ? e.name : 'Exception', message: e?.message ?? String(e) } };
    }
  }

  /** --latency: the execution's sampler, and how long its start is delayed (scaled ms; a cold start after a long idle). */
  startLatency(st, n) {
    st.latency = this.latency.forExecution(n);
    const idleFor = this.lastActivityAt === null ? Infinity : this.now() - this.lastActivityAt;
    const cold = this.live.size === 0 && idleFor > this.latency.model.costs['execution.coldAfterIdleMs'].value;
    this.lastActivityAt = this.now();
    this.bundleKb ??= statSync(resolvePath(this.opts.bundleDir, 'Code.js')).size / 1024;
    return st.latency.start({ bundleKb: this.bundleKb, cold });
  }

  /**
   * Runs one host call with its modeled cost: half before the handler (the request travelling to Google) and half
   * after (the answer travelling back), both in the host before it answers the worker, so race windows widen as on
   * Google. Without --latency it is the handler alone.
   */
  async paced(st, req, key, handler) {
    if (!st.latency) return handler();
    const ms = st.latency.call(key, cellsOf(this.ss, req));
    await sleep(ms / 2);
    const value = await handler();
    await sleep(ms / 2);
    return value;
  }

  finishLatency(st) {
    const rec = st.rec, l = st.latency;
    rec.modeledMs = l.finish(rec.durationMs);
    rec.latency = { spec: this.latency.spec, seed: this.latency.seed, modeledStartMs: l.startMs, modeledDelayMs: l.modeledMs, sleptMs: l.sleptMs, byCost: l.byCost };
    this.lastActivityAt = this.now();
  }

  recordRtts(samples) {
    if (!samples?.length) return;
    this.rtts.push(...samples);
    if (this.rtts.length > MAX_RTT_SAMPLES) this.rtts.splice(0, this.rtts.length - MAX_RTT_SAMPLES);
  }

  /** Round-trip times of service calls as measured inside the workers (µs), from finished executions. */
  bridgeStats({ reset = false } = {}) {
    const s = [...this.rtts].sort((a, b) => a - b);
    const q = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : null);
    const out = { samples: s.length, medianUs: q(0.5), p90Us: q(0.9), p99Us: q(0.99), minUs: s[0] ?? null, maxUs: s[s.length - 1] ?? null };
    if (reset) this.rtts = [];
    return out;
  }

  sheetNames() { return this.ss.sheets.map((s) => s.name); }

  /**
   * A sheet as plain JSON for the HTTP API and tests: dates as ISO strings, formulas in the same shape as rows, and
   * `display`: the text Sheets shows in each cell (its number format applied, '#ERROR!' for a broken formula).
   */
  sheetJson(name) {
    const sh = this.ss.byName(name);
    if (!sh) return null;
    const width = sh.lastColumn(), height = sh.lastRow(), tz = this.ss.timeZone;
    const iso = (x) => (x instanceof Date ? x.toISOString() : x);
    const rowOf = (r, get) => Array.from({ length: width }, (_, j) => iso(get(r, j + 1)));
    const shown = (a, b) => displayValue(sh.value(a, b), sh.format(a, b), tz);
    const rows = [], formulas = [], display = [];
    for (let r = 2; r <= height; r++) {
      rows.push(rowOf(r, (a, b) => sh.value(a, b))); formulas.push(rowOf(r, (a, b) => sh.formula(a, b))); display.push(rowOf(r, shown));
    }
    return { name: sh.name, header: height >= 1 ? rowOf(1, (a, b) => sh.value(a, b)) : [], rows, formulas, display };
  }

  /** Bulk-writes a sheet as stored values (no input parsing), replacing its content; fast enough for 100,000 rows. */
  loadSheet(name, header, rows) {
    const sh = this.ss.byName(name) ?? this.ss.insert(name);
    sh.v = [header.slice(), ...rows.map((r) => r.slice())];
    sh.f = []; sh.notes = [];
    sh.grow(sh.v.length, Math.max(header.length, ...rows.slice(0, 1).map((r) => r.length)));
    this.markDirty();
    return sh;
  }

  /**
   * A person acts on a sheet in the Sheets UI (staff-edits.mjs): `op` is set (type into one cell, the default),
   * paste, copy, clear, sort, insertRows, deleteRows, insertColumns or renameSheet. The change lands at once, between any two service calls of a
   * running execution; then every installed trigger Google fires for it runs as its own execution: ON_EDIT
   * (e.range, and e.value/e.oldValue for one typed or cleared cell) and ON_CHANGE (e.changeType), each with
   * authMode, triggerUid, user and source [GAS-TRIG]; what a paste and a sort fire is this host's `worlds` reading.
   * Resolves with the executions, on-edit ones first.
   */
  async edit({ sheet, user, ...req }) {
    const sh = this.ss.byName(sheet);
    if (!sh) throw new Error(`no sheet named ${sheet}`);
    const person = user ?? this.owner;
    const { edit, changeType } = applyStaffEdit(sh, req, { tz: this.ss.timeZone, now: this.now(), worlds: this.worlds, person, owner: this.owner });
    this.markDirty();
    const common = (t) => ({
      authMode: 'FULL', triggerUid: t.id, user: { __ref: 'User', h: { email: visibleActiveUser(person, t.owner ?? this.owner) } },
      source: { __ref: 'Spreadsheet', h: { id: this.ss.id } },
    });
    const runs = [];
    if (edit) {
      const activeRange = { sheet, a1: a1Of(edit.range) };
      for (const t of this.triggers.filter((u) => u.type === 'ON_EDIT')) {
        const ev = { ...common(t), range: { __ref: 'Range', h: edit.range } };
        if (edit.value !== undefined) ev.value = edit.value;
        if (edit.oldValue !== undefined) ev.oldValue = edit.oldValue; // Sheets omits oldValue when the cell was empty
        runs.push(this.run(t.handler, [ev], { kind: 'edit', user: person, triggerUid: t.id, activeRange }));
      }
    }
    for (const t of changeType === null ? [] : this.triggers.filter((u) => u.type === 'ON_CHANGE')) {
      runs.push(this.run(t.handler, [{ ...common(t), changeType }], { kind: 'edit', user: person, triggerUid: t.id }));
    }
    return Promise.all(runs);
  }

  /** Fires clock triggers now, each as its own execution; `all` ignores everyMinutes (tick() is "fire once now"). */
  tick(all = true) {
    const due = this.time.takeTick(this.clockTriggers(), all);
    return Promise.all(due.map((t) => this.run(t.handler, [clockEvent(t, this.now(), this.opts.timeZone)], { kind: 'trigger', triggerUid: t.id })));
  }

  /** Each interval is one "minute": a trigger every N minutes fires every N ticks; runs overlap on purpose. */
  startClock(intervalSeconds = 60) { this.time.start(intervalSeconds, () => { this.tick(false).catch(() => {}); }); }
  stopClock() { this.time.stop(); }

  /**
   * A person deletes a sent message from the Sent folder: the mail still went (the outbox keeps it), but Gmail search
   * and get no longer find it. Answers the outbox entry, or null for an unknown id.
   */
  deleteSentCopy(id) {
    const m = this.outbox.find((n) => n.id === id);
    if (!m) return null;
    m.deletedFromSent = true;
    this.markDirty();
    return m;
  }

  setMailQuota(n) { this.mail.quota = n; this.markDirty(); }
  /** A new quota window for every user and every daily quota (mail, trigger runtime, URL Fetch). */
  resetDay() { this.mail.users = {}; this.daily = { triggerRuntime: {}, urlFetch: {} }; this.markDirty(); }
  /** Recipients `user` (default the owner) may still mail in their current window. */
  remainingMailQuota(user = this.owner) { return remainingQuota(this, user); }
  /** Trigger runtime (ms) `user` has left in their current window; 0 or less refuses their trigger runs. */
  remainingTriggerRuntimeMs(user = this.owner) { return this.limits.triggerRuntimeMs - usedIn(this.daily.triggerRuntime, user, this.now()); }
  /** URL Fetch calls `user` has left in their current window. */
  remainingUrlFetches(user = this.owner) { return this.limits.urlFetchCalls - usedIn(this.daily.urlFetch, user, this.now()); }
  /** As if `user`'s earlier trigger runs had taken `ms` more (opening their window now if none is open): for tests. */
  useTriggerRuntime(ms, user = this.owner) { spend(this.daily.triggerRuntime, user, this.now(), ms); this.markDirty(); }
  /** As if `user` had made `n` more URL Fetch calls (another script of the account, say): for tests. */
  useUrlFetches(n, user = this.owner) { spend(this.daily.urlFetch, user, this.now(), n); this.markDirty(); }
  /**
   * Each daily quota of `user` as of now: what is used and left, and when the window resets (null: no window open).
   * @returns {{ mail: object, triggerRuntimeMs: object, urlFetch: object }}
   */
  dailyQuotas(user = this.owner) {
    const now = this.now();
    const of = (table, limit) => ({ used: usedIn(table, user, now), limit, resetsAt: isoOrNull(resetsAt(table, user, now)) });
    return { mail: of(this.mail.users, this.mail.quota), triggerRuntimeMs: of(this.daily.triggerRuntime, this.limits.triggerRuntimeMs), urlFetch: of(this.daily.urlFetch, this.limits.urlFetchCalls) };
  }
  /** Daily-quota windows from a saved state (persist.mjs). */
  restoreDaily({ mail, triggerRuntime, urlFetch } = {}) {
    if (mail) this.mail.users = restoreTable(mail);
    this.daily = { triggerRuntime: restoreTable(triggerRuntime ?? this.daily.triggerRuntime), urlFetch: restoreTable(urlFetch ?? this.daily.urlFetch) };
  }

  async dispose() {
    this.stopClock();
    const live = [...this.live.values()];
    for (const st of live) st.kill('crash', { name: 'Error', message: 'host disposed' });
    await Promise.all(live.map((st) => st.finished));
    if (this.saveTimer) await this.save();
  }
}

/**
 * A run that counts toward "Triggers total runtime" (https://developers.google.com/apps-script/guides/services/quotas):
 * one a trigger started, time-driven (kind 'trigger') or an installable on-edit/on-change (kind 'edit' with its
 * trigger). Web-app calls, menus and /api/run are not trigger runs (whether Google counts web-app time here is not
 * documented: docs/quotas.md).
 */
function isTriggerRun(kind, runOpts) {
  return kind === 'trigger' || (kind === 'edit' && Boolean(runOpts.triggerUid));
}

const isoOrNull = (ms) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Whose "30 simultaneous executions per user" an execution counts against: the user it runs as (a web app set to
 * execute as the deployer counts against the deployer). The one place to change when identities change.
 */
function quotaUserOf(st) {
  return st.userEmail;
}

const sleep = (ms) => (ms >= 0.5 ? new Promise((r) => setTimeout(r, ms)) : undefined);

export { SheetModel };
