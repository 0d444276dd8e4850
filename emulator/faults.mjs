// Injected faults (Sheets outages, Gemini errors/timeouts/latency/pauses, mail quota, crashes and dead addresses, Gmail API lag/errors), each use recorded.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout, clearTimeout } from 'node:timers';
import { GasError } from './errors.mjs';
import { answerWithText, modelNotFound, obeyingReply } from './offline-gemini.mjs';

const TARGETS = ['sheets', 'gemini', 'mail', 'gmail'];
const LOCAL_DIR = new URL('./gemini-bodies/', import.meta.url);

/** Gemini's real error bodies, as shipped with the emulator (emulator/gemini-bodies). */
function loadBodies() {
  const read = (name) => {
    for (const dir of [LOCAL_DIR]) {
      const u = new URL(name, dir);
      if (existsSync(u)) return readFileSync(u, 'utf8');
    }
    return null;
  };
  return {
    429: read('error-429-per-minute.json'), '429day': read('error-429-per-day.json'), 400: read('error-400-bad-key.json'),
    404: read('error-404-model.json'), 500: read('error-500.json'), 503: read('error-503.json'), blocked: read('blocked-prompt.json'),
  };
}

const STATUS_NAMES = { 400: 'INVALID_ARGUMENT', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };

export class Faults {
  constructor(host) {
    this.host = host;
    this.items = [];
    this.history = []; // every time a fault fired: { id, target, kind, executionId, at }
    this.paused = []; // Gemini fetches held by a pause fault: { resolve, fault }
    this.pauseWatchers = [];
    this.heldSheetCalls = []; // Sheets calls held by a sheets pause fault: { resolve }
    this.heldWatchers = [];
    this.seq = 0;
    this.bodies = loadBodies();
  }

  add(fault) {
    if (!fault || !TARGETS.includes(fault.target)) throw new Error(`fault target must be one of ${TARGETS.join(', ')}`);
    const item = { ...fault, id: ++this.seq, addedAt: this.host.now() };
    for (const crash of ['crashAfterSend', 'crashBeforeSend']) {
      if (item.target === 'mail' && item[crash] !== undefined && item.count === undefined) item.count = Number(item[crash]) || 1;
    }
    this.items.push(item);
    return { ...item };
  }

  remove(id) { this.items = this.items.filter((f) => f.id !== id); this.releasePaused(); this.releaseHeldSheetCalls(); }
  clear() { this.items = []; this.releasePaused(); this.releaseHeldSheetCalls(); }
  list() { return this.active().map((f) => ({ ...f })); }

  active(target) {
    const now = this.host.now();
    this.items = this.items.filter((f) => !(f.forMs !== undefined && now - f.addedAt >= f.forMs) && !(f.count !== undefined && f.count <= 0));
    return target ? this.items.filter((f) => f.target === target) : this.items;
  }

  use(f, kind, exec) {
    this.history.push({ id: f.id, target: f.target, kind, executionId: exec?.id ?? null, at: new Date(this.host.now()).toISOString() });
    if (f.count !== undefined) { f.count -= 1; if (f.count <= 0) this.items = this.items.filter((g) => g !== f); }
  }

  /** The message a Sheets call must throw now, if a Sheets fault is active. */
  sheetsError(exec) {
    const f = this.active('sheets').find((g) => !g.pause);
    if (!f) return null;
    this.use(f, 'error', exec);
    return f.error || 'Service Spreadsheets failed while accessing document.';
  }

  /**
   * `{"target":"sheets","pause":true,"call":"Sheet.appendRow","sheet":"Archive"}` (call and sheet optional, `count`
   * as usual): the matching Sheets call is held before it runs until the fault is removed or cleared, so a test can
   * act (a staff sort) at that exact point of an execution. The call then runs on the sheet as it is by then.
   */
  async holdSheetsCall(exec, call, sheetName) {
    const f = this.active('sheets').find((g) => g.pause && (g.call === undefined || g.call === call) && (g.sheet === undefined || g.sheet === sheetName));
    if (!f) return;
    this.use(f, `pause ${call}`, exec);
    await new Promise((resolve) => {
      this.heldSheetCalls.push({ resolve });
      for (const w of this.heldWatchers.filter((w) => this.heldSheetCalls.length >= w.n)) w.resolve(this.heldSheetCalls.length);
      this.heldWatchers = this.heldWatchers.filter((w) => this.heldSheetCalls.length < w.n);
    });
  }

  /** Resolves when n Sheets calls are being held by a sheets pause fault. */
  waitForHeldSheetCalls(n = 1) {
    if (this.heldSheetCalls.length >= n) return Promise.resolve(this.heldSheetCalls.length);
    return new Promise((resolve) => this.heldWatchers.push({ n, resolve }));
  }

  releaseHeldSheetCalls() {
    if (this.items.some((f) => f.target === 'sheets' && f.pause)) return;
    const held = this.heldSheetCalls;
    this.heldSheetCalls = [];
    for (const h of held) h.resolve();
  }

  mailQuota() {
    const f = this.active('mail').find((g) => g.quota !== undefined);
    return f ? Number(f.quota) : null;
  }

  takeCrashAfterSend(exec) {
    const f = this.active('mail').find((g) => g.crashAfterSend !== undefined);
    if (!f) return false;
    this.use(f, 'crashAfterSend', exec);
    return true;
  }

  /** The mail fault that kills the execution inside the send call, before the message reaches the outbox. */
  takeCrashBeforeSend(exec) {
    const f = this.active('mail').find((g) => g.crashBeforeSend !== undefined);
    if (!f) return false;
    this.use(f, 'crashBeforeSend', exec);
    return true;
  }

  /**
   * `{"target":"mail","deadAddress":"x@example.com"}` (optional `delayMs`, `diagnostic`): a mail to that address goes (it
   * is in the outbox, the quota is spent, as for any mail Gmail accepts), and Gmail's delivery-failure notice for it
   * lands in the sender's inbox `delayMs` later (services/bounce-notice.mjs). Not used up: the address stays dead.
   */
  deadAddress(address, exec) {
    const wanted = String(address).trim().toLowerCase();
    const f = this.active('mail').find((g) => g.deadAddress !== undefined && String(g.deadAddress).trim().toLowerCase() === wanted);
    if (!f) return null;
    this.use(f, 'bounce', exec);
    return f;
  }

  /**
   * Gmail search index lag: with `{"target":"gmail","lagMs":N}` active, a sent copy is invisible to
   * Gmail.Users.Messages.list for N ms after it was sent (get by id still finds it). Not used up by a query.
   */
  gmailLagMs() {
    const f = this.active('gmail').find((g) => g.lagMs !== undefined);
    return f ? Number(f.lagMs) : 0;
  }

  /** `{"target":"gmail","error":"Backend Error"}` (optionally `method`: list|get): the call fails with the API's wording. */
  gmailError(method, exec) {
    const f = this.active('gmail').find((g) => g.error !== undefined && (g.method === undefined || g.method === method));
    if (!f) return;
    this.use(f, `error ${method}`, exec);
    throw new GasError(`API call to gmail.users.messages.${method} failed with error: ${f.error}`, 'GoogleJsonResponseException');
  }

  /** Resolves when n Gemini fetches are being held by a pause fault (for deterministic race tests). */
  waitForPausedFetches(n = 1) {
    if (this.paused.length >= n) return Promise.resolve(this.paused.length);
    return new Promise((resolve) => this.pauseWatchers.push({ n, resolve }));
  }

  releasePaused() {
    if (this.active('gemini').some((f) => f.pause)) return;
    const held = this.paused;
    this.paused = [];
    for (const p of held) p.resolve();
  }

  /**
   * Applies Gemini faults to one generateContent fetch: pause, then latency, then the first
   * status/timeout/blocked fault. Returns a canned { code, body } or null to let the real fetch run.
   */
  /**
   * A model talked into it: `{"target":"gemini","reply":"text"}` answers 200 with exactly that text (the reply an
   * injection steered it to write); `{"target":"gemini","obey":true}` answers with a reply that follows an instruction
   * found in the respondent's answers ("ignore the above … X" → the reply says X). Both take `match` and `count`.
   */
  talkedInto(f, url, exec, payload) {
    this.use(f, f.obey ? 'obey' : 'reply', exec);
    const model = decodeURIComponent(/\/models\/([^/:]+):generateContent/.exec(url)?.[1] ?? 'gemini');
    let text = String(f.reply ?? '');
    if (f.obey) {
      let request;
      try { request = JSON.parse(String(payload)); } catch { request = {}; }
      const turns = Array.isArray(request?.contents) ? request.contents : [];
      const prompt = turns.filter((c) => c?.role !== 'model').flatMap((c) => (Array.isArray(c?.parts) ? c.parts : [])).map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
      text = obeyingReply(prompt);
    }
    return { code: 200, body: JSON.stringify(answerWithText(model, text)) };
  }

  async gemini(url, exec, signal, payload = '') {
    const pause = this.active('gemini').find((f) => f.pause);
    if (pause) {
      this.use(pause, 'pause', exec);
      await new Promise((resolve) => {
        const p = { resolve };
        this.paused.push(p);
        signal.addEventListener('abort', () => { this.paused = this.paused.filter((q) => q !== p); resolve(); }, { once: true });
        for (const w of this.pauseWatchers.filter((w) => this.paused.length >= w.n)) w.resolve(this.paused.length);
        this.pauseWatchers = this.pauseWatchers.filter((w) => this.paused.length < w.n);
      });
    }
    const latency = this.active('gemini').find((f) => f.latencyMs);
    if (latency) {
      this.use(latency, 'latency', exec);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, latency.latencyMs);
        signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
      });
    }
    // `match`: the fault hits only requests whose body contains that text (one row of a fetchAll batch);
    // `model`: only requests to that model (the id in the URL, …/models/<id>:generateContent).
    const modelOf = /\/models\/([^/:]+):generateContent/.exec(url);
    const asked = modelOf ? decodeURIComponent(modelOf[1]) : null;
    const f = this.active('gemini').find((g) => (g.timeout || g.blocked || g.status || g.reply !== undefined || g.obey)
      && (g.match === undefined || String(payload).includes(String(g.match)))
      && (g.model === undefined || g.model === asked));
    if (!f) return null;
    if (f.reply !== undefined || f.obey) return this.talkedInto(f, url, exec, payload);
    this.use(f, f.timeout ? 'timeout' : f.blocked ? 'blocked' : `status ${f.status}`, exec);
    if (f.timeout) throw new GasError(`Timeout: ${url}`);
    if (f.blocked) return { code: 200, body: this.bodies.blocked };
    const status = Number(f.status);
    // A 404 aimed at a model names that model, as Gemini does for a retired id (offline-gemini.mjs modelNotFound).
    if (status === 404 && f.model !== undefined) return { code: 404, body: JSON.stringify(modelNotFound(String(f.model)).body) };
    const body = (status === 429 && f.quota === 'day' ? this.bodies['429day'] : this.bodies[status])
      ?? JSON.stringify({ error: { code: status, message: `Injected fault ${status}`, status: STATUS_NAMES[status] || 'UNKNOWN' } });
    return { code: status, body };
  }
}
