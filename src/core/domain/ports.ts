// What core needs from outside the spreadsheet (clock, randomness, Script Properties, cache, locks, Gemini, mail, Gmail, incidents, the spill), each a few methods wide; the sheets' ports are in sheet-ports.ts.
import type { IncidentCode } from './failures/codes';

/** Epoch milliseconds; core never reads the clock itself. */
export interface Clock {
  now(): number;
}

/** Uniform in [0, 1): jitter and mail references; core never calls Math.random itself. */
export interface Random {
  next(): number;
}

/** Script Properties: secrets, knobs, incidents, the spill and wake markers (they work while Sheets is down). */
export interface PropertyStore {
  getAll(): Record<string, string>;
  /** One property read fresh, undefined when unset: for a value that must be newer than the execution's snapshot. */
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  setMany(values: Record<string, string>): void;
  delete(key: string): void;
}

/** The script cache: a fast path only, it may forget anything at any time. */
export interface Cache {
  get(key: string): string | null;
  put(key: string, value: string, ttlSeconds: number): void;
}

export interface Lock {
  /** True when the lock was had within timeoutMs. */
  tryLock(timeoutMs: number): boolean;
  release(): void;
}

/** A generateContent call, already shaped by core. */
export interface GeminiRequest {
  model: string;
  body: unknown;
}

/** What came back: an HTTP answer (any status) or a transport failure (timeout, DNS, connection). */
export type GeminiOutcome =
  | { kind: 'http'; status: number; body: string }
  | { kind: 'transport'; message: string; notAsked?: true };

export interface GeminiClient {
  /**
   * All requests at once (UrlFetchApp.fetchAll); outcomes in request order. Throws when the batch fails as a
   * whole (a transport error in any one request), so the caller can ask again request by request.
   */
  generateAll(requests: readonly GeminiRequest[]): GeminiOutcome[];
}

export interface OutgoingMail {
  to: string;
  subject: string;
  body: string;
  htmlBody: string;
  name?: string;
  replyTo?: string;
  bcc?: string;
}

export interface Mailer {
  /** Recipients that may still be mailed today. */
  remainingDailyQuota(): number;
  /** Throws on failure with the platform's message (quota, invalid address, anything else). */
  send(mail: OutgoingMail): void;
}

/** One message of the Sent folder, as the Gmail adapter reads it. */
export interface SentCopy {
  id: string;
  /** The To header as written ("Ann <ann@example.org>, …"). */
  to: string;
  subject: string;
  /** Plain and HTML text parts, joined. */
  body: string;
  /** Epoch ms (Gmail's internalDate). */
  sentAt: number;
}

/** The running account's Sent folder (RECONCILE_SENT_MAIL). Throws when Gmail cannot be searched (scope, service, outage). */
export interface SentMailbox {
  search(query: string): SentCopy[];
}

/** A message of the running account's inbox as the bounce check reads it (RECONCILE_BOUNCES). */
export interface BounceNotice {
  id: string;
  /** Epoch ms (Gmail's internalDate: when it arrived). */
  receivedAt: number;
  from: string;
  subject: string;
  /** The X-Failed-Recipients header, '' when absent. */
  failedRecipients: string;
  /** Every part Gmail shows inline (the human text, the delivery-status fields, the original's headers and text), joined. */
  text: string;
}

/** The running account's inbox, for Gmail's delivery-failure notices. Throws when Gmail cannot be searched. */
export interface BounceMailbox {
  /** Ids of the messages the query finds, newest first (one page). */
  list(query: string): string[];
  read(id: string): BounceNotice;
}

/** Where processing and intake report conditions; the triage module folds, throttles and mails them. */
export interface IncidentSink {
  /** The condition is present now; `detail` is already redacted or will be; rows are sheet row numbers. */
  raise(code: IncidentCode, detail: string, rowNumbers?: readonly number[]): void;
  /** The condition was checked and is gone. */
  clear(code: IncidentCode): void;
  /** The open incident of that code as stored before this execution raised it, or null: how long a condition has lasted. */
  priorOpen(code: IncidentCode): { runs: number; rowCount: number } | null;
  /**
   * Writes what was raised and cleared so far at once, instead of with the run's end: a condition seen gone mid-run
   * (Gemini answering again) stays gone even when the run is killed before it ends. Absent: written at the end only.
   */
  persistNow?(): void;
}

/** A delivery kept in Script Properties because the sheet could not take it in time. */
export interface SpilledDelivery {
  /** Sorts in arrival order. */
  id: string;
  receivedAt: number;
  body: string;
  /** Set when the stored entry could not be decoded; `body` then holds the stored text as it is. */
  unreadable?: string;
}

/** Deliveries waiting in Script Properties (gzip + base64, chunked under 9 KB a value) for processQueue to drain. */
export interface SpillStore {
  /** Throws SPILL_FULL when the store has no room for it. */
  save(receivedAt: number, body: string): void;
  /** Oldest first. */
  list(): SpilledDelivery[];
  remove(id: string): void;
  /** Characters the spill takes now, against SPILL_LIMIT_CHARS. */
  size(): number;
  /** Deliveries waiting, counted from the keys alone (nothing is decoded). */
  count(): number;
}
