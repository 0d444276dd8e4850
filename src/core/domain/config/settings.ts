// Script Properties → typed settings: secrets, ids and knobs, with safe defaults and errors that name the setting.
import { modelList } from '../gemini/model-list';
import { parsePrices, type ModelPrice } from '../gemini/token-usage';

export interface Settings {
  webhookToken: string;
  /** Accepted too while a token rotation is under way. */
  webhookTokenPrevious: string;
  /** doGet's own token, so an uptime checker never holds the webhook secret. */
  healthToken: string;
  geminiApiKey: string;
  geminiModel: string;
  geminiBaseUrl: string;
  spreadsheetId: string;
  staffEmails: string[];
  geminiConcurrency: number;
  maxAttempts: number;
  retryBaseSeconds: number;
  runBudgetSeconds: number;
  staleGeneratingMinutes: number;
  staleSendingMinutes: number;
  maxMailsPerRun: number;
  maxMailsPerRecipientPerDay: number;
  archiveAfterDays: number;
  triageReminderMinutes: number;
  /** An AWAITING_APPROVAL row waiting longer than this needs a person: triage mails it and doGet reports it. */
  approvalWaitHours: number;
  /** Emergency stop: no generation, no sending; intake keeps queuing. */
  paused: boolean;
  dailySummary: boolean;
  /**
   * Optional Typeform personal access token (responses:read, forms:read, webhooks:read): the self-test checks it and
   * reconcileTypeform reads with it ('' turns that check off); deliveries are authenticated by WEBHOOK_TOKEN.
   */
  typeformToken: string;
  /** The US API by default; https://api.eu.typeform.com for EU accounts; the local runtime's /typeform. */
  typeformBaseUrl: string;
  /** Settle SENDING rows whose outcome was never recorded from the Sent folder (needs gmail.readonly: docs/oauth-scopes.md). */
  reconcileSentMail: boolean;
  /** With reconcileSentMail: a row with no copy in Sent after two looks is sent once more, never twice. */
  reconcileResend: boolean;
  /** Find Gmail's delivery-failure notices for sent replies, mark their rows and suppress the address (gmail.readonly). */
  reconcileBounces: boolean;
  /** With reconcileBounces: the inbox is searched for notices at most this often (full runs only, never an idle tick). */
  bounceCheckMinutes: number;
  /** GEMINI_MODEL as an ordered list: a model Gemini answers 404 for gives way to the next (geminiModel is the first). */
  geminiModels: string[];
  /** US dollars per 1M tokens by model id: the defaults, with GEMINI_PRICES on top (domain/gemini/token-usage.ts). */
  geminiPrices: Record<string, ModelPrice>;
  /** Tokens (prompt, output and thinking) a calendar day may spend on replies before generation waits for the next day; 0 = no cap. */
  dailyTokenBudget: number;
  /** The webhook watch switches a disabled Typeform webhook back on (needs the token's webhooks:write scope). */
  typeformWebhookReenable: boolean;
  /** A recovered submission younger than this (hours; 0: none) that the ledger proves was never answered is not held for approval. */
  recoveredAutoSendHours: number;
  /** Distinct addresses never mailed before (as Queue shows) that may be mailed in a rolling hour: past it rows wait. */
  maxNewRecipientsPerHour: number;
  /** The same in a rolling 24 hours. */
  maxNewRecipientsPerDay: number;
}

export const DEFAULT_GEMINI_MODEL = 'gemini-3.5-flash';
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';
/** https://www.typeform.com/developers/get-started/ (EU accounts: https://api.eu.typeform.com). */
export const DEFAULT_TYPEFORM_BASE_URL = 'https://api.typeform.com';

/** A day: a reply written overnight is approved next morning without anyone being mailed about it. */
export const DEFAULT_APPROVAL_WAIT_HOURS = 24;

interface NumberKnob {
  key: string;
  field: keyof Settings;
  fallback: number;
  min: number;
  max: number;
}

/** The shortest ARCHIVE_AFTER_DAYS: intake skips the Archive for submissions younger than this (domain/queue/archive.ts). */
export const MIN_ARCHIVE_AFTER_DAYS = 1;

const NUMBER_KNOBS: readonly NumberKnob[] = [
  { key: 'GEMINI_CONCURRENCY', field: 'geminiConcurrency', fallback: 4, min: 1, max: 20 },
  { key: 'MAX_ATTEMPTS', field: 'maxAttempts', fallback: 5, min: 1, max: 20 },
  { key: 'RETRY_BASE_SECONDS', field: 'retryBaseSeconds', fallback: 60, min: 1, max: 3600 },
  { key: 'RUN_BUDGET_SECONDS', field: 'runBudgetSeconds', fallback: 270, min: 10, max: 330 },
  { key: 'STALE_GENERATING_MINUTES', field: 'staleGeneratingMinutes', fallback: 10, min: 7, max: 1440 },
  { key: 'STALE_SENDING_MINUTES', field: 'staleSendingMinutes', fallback: 15, min: 7, max: 1440 },
  { key: 'MAX_MAILS_PER_RUN', field: 'maxMailsPerRun', fallback: 50, min: 1, max: 1500 },
  { key: 'MAX_MAILS_PER_RECIPIENT_PER_DAY', field: 'maxMailsPerRecipientPerDay', fallback: 5, min: 1, max: 100 },
  { key: 'ARCHIVE_AFTER_DAYS', field: 'archiveAfterDays', fallback: 30, min: MIN_ARCHIVE_AFTER_DAYS, max: 3650 },
  { key: 'TRIAGE_REMINDER_MINUTES', field: 'triageReminderMinutes', fallback: 60, min: 5, max: 10080 },
  { key: 'APPROVAL_WAIT_HOURS', field: 'approvalWaitHours', fallback: DEFAULT_APPROVAL_WAIT_HOURS, min: 1, max: 720 },
  { key: 'BOUNCE_CHECK_MINUTES', field: 'bounceCheckMinutes', fallback: 30, min: 5, max: 1440 },
  { key: 'DAILY_TOKEN_BUDGET', field: 'dailyTokenBudget', fallback: 0, min: 0, max: 1_000_000_000 },
  { key: 'RECOVERED_AUTO_SEND_HOURS', field: 'recoveredAutoSendHours', fallback: 24, min: 0, max: 720 },
  { key: 'MAX_NEW_RECIPIENTS_PER_HOUR', field: 'maxNewRecipientsPerHour', fallback: 50, min: 1, max: 1500 },
  { key: 'MAX_NEW_RECIPIENTS_PER_DAY', field: 'maxNewRecipientsPerDay', fallback: 200, min: 1, max: 1500 },
];

/** Every Script Property formqueue reads, for docs and for "unknown property" hints. */
export const SETTING_KEYS = [
  'WEBHOOK_TOKEN',
  'WEBHOOK_TOKEN_PREVIOUS',
  'HEALTH_TOKEN',
  'GEMINI_API_KEY',
  'GEMINI_MODEL',
  'GEMINI_BASE_URL',
  'SPREADSHEET_ID',
  'STAFF_EMAILS',
  'TYPEFORM_TOKEN',
  ...NUMBER_KNOBS.map((knob) => knob.key),
  'PAUSED',
  'DAILY_SUMMARY',
  'TYPEFORM_BASE_URL',
  'RECONCILE_SENT_MAIL',
  'RECONCILE_RESEND',
  'RECONCILE_BOUNCES',
  'GEMINI_PRICES',
  'TYPEFORM_WEBHOOK_REENABLE',
] as const;

export interface SettingsReading {
  settings: Settings;
  /** Each bad value, named with how to fix it; the setting falls back to its default. */
  problems: string[];
}

function flag(value: string | undefined): boolean {
  return /^(true|yes|on|1)$/i.test((value ?? '').trim());
}

/** Every NUMBER_KNOBS setting: its whole number within range, or its fallback with the problem said. */
function readNumberKnobs(settings: Settings, text: (key: string) => string, problems: string[]): void {
  const record = settings as unknown as Record<string, unknown>;
  for (const knob of NUMBER_KNOBS) {
    const raw = text(knob.key);
    if (raw === '') {
      record[knob.field] = knob.fallback;
      continue;
    }
    const value = Number(raw);
    if (!Number.isInteger(value) || value < knob.min || value > knob.max) {
      problems.push(
        `Script Property ${knob.key} must be a whole number from ${knob.min} to ${knob.max} (it is "${raw}"); ` +
          `using ${knob.fallback}. Fix it in Project Settings → Script Properties.`,
      );
      record[knob.field] = knob.fallback;
    } else {
      record[knob.field] = value;
    }
  }
}

export function readSettings(props: Readonly<Record<string, string | undefined>>): SettingsReading {
  const problems: string[] = [];
  const text = (key: string) => (props[key] ?? '').trim();
  const settings: Settings = {
    webhookToken: text('WEBHOOK_TOKEN'),
    webhookTokenPrevious: text('WEBHOOK_TOKEN_PREVIOUS'),
    healthToken: text('HEALTH_TOKEN'),
    geminiApiKey: text('GEMINI_API_KEY'),
    geminiModel: text('GEMINI_MODEL') || DEFAULT_GEMINI_MODEL,
    geminiBaseUrl: (text('GEMINI_BASE_URL') || DEFAULT_GEMINI_BASE_URL).replace(/\/+$/, ''),
    spreadsheetId: text('SPREADSHEET_ID'),
    typeformToken: text('TYPEFORM_TOKEN'),
    staffEmails: text('STAFF_EMAILS')
      .split(/[,;\s]+/)
      .filter((address) => address !== ''),
    geminiConcurrency: 4,
    maxAttempts: 5,
    retryBaseSeconds: 60,
    runBudgetSeconds: 270,
    staleGeneratingMinutes: 10,
    staleSendingMinutes: 15,
    maxMailsPerRun: 50,
    maxMailsPerRecipientPerDay: 5,
    archiveAfterDays: 30,
    triageReminderMinutes: 60,
    approvalWaitHours: DEFAULT_APPROVAL_WAIT_HOURS,
    paused: flag(props.PAUSED),
    dailySummary: flag(props.DAILY_SUMMARY),
    typeformBaseUrl: (text('TYPEFORM_BASE_URL') || DEFAULT_TYPEFORM_BASE_URL).replace(/\/+$/, ''),
    reconcileSentMail: flag(props.RECONCILE_SENT_MAIL),
    reconcileResend: flag(props.RECONCILE_RESEND),
    reconcileBounces: flag(props.RECONCILE_BOUNCES),
    bounceCheckMinutes: 30,
    geminiModels: [],
    geminiPrices: {},
    dailyTokenBudget: 0,
    typeformWebhookReenable: flag(props.TYPEFORM_WEBHOOK_REENABLE),
    recoveredAutoSendHours: 24,
    maxNewRecipientsPerHour: 50,
    maxNewRecipientsPerDay: 200,
  };
  settings.geminiModels = modelList(settings.geminiModel);
  if (settings.geminiModels.length === 0) settings.geminiModels = [DEFAULT_GEMINI_MODEL];
  settings.geminiModel = settings.geminiModels[0];
  const prices = parsePrices(text('GEMINI_PRICES'));
  settings.geminiPrices = prices.prices;
  if (prices.problems.length > 0) {
    problems.push(`Script Property GEMINI_PRICES has entries it cannot read (${prices.problems.join('; ')}): write model=input/output in US dollars per 1M tokens, e.g. gemini-3.5-flash=1.50/9.00; those entries are ignored.`);
  }
  readNumberKnobs(settings, text, problems);
  const baseUrlProblem = geminiBaseUrlProblem(settings.geminiBaseUrl);
  if (baseUrlProblem !== null) {
    problems.push(`Script Property GEMINI_BASE_URL ${baseUrlProblem}; using ${DEFAULT_GEMINI_BASE_URL}.`);
    settings.geminiBaseUrl = DEFAULT_GEMINI_BASE_URL;
  }
  if (!/^https?:\/\//.test(settings.typeformBaseUrl)) {
    problems.push(`Script Property TYPEFORM_BASE_URL must start with https:// or http:// (it is "${settings.typeformBaseUrl}"); using ${DEFAULT_TYPEFORM_BASE_URL}.`);
    settings.typeformBaseUrl = DEFAULT_TYPEFORM_BASE_URL;
  }
  for (const key of TOKEN_KEYS) {
    const problem = tokenProblem(text(key));
    if (problem !== null) problems.push(`Script Property ${key} ${problem}, so it is not accepted. ${TOKEN_FIX}`);
  }
  return { settings, problems };
}

/** Tokens a caller presents; each must be long and random, or a guess could open the door. */
export const TOKEN_KEYS = ['WEBHOOK_TOKEN', 'WEBHOOK_TOKEN_PREVIOUS', 'HEALTH_TOKEN'] as const;
export const MIN_TOKEN_CHARS = 32;
/** Fewer distinct characters than this in 32+ reads as typed, not random (e.g. "aaaa…" or "abcabc…"). */
const MIN_DISTINCT_TOKEN_CHARS = 10;
const TOKEN_FIX =
  'Clear it and run formqueue → Set up / repair, which generates one (then put the new WEBHOOK_TOKEN in the Typeform webhook URL, or HEALTH_TOKEN in the uptime checker)';

/** Why a token value is too weak to accept, or null when it is fine (or not set). */
export function tokenProblem(value: string): string | null {
  if (value === '') return null;
  if (value.length < MIN_TOKEN_CHARS) return `is ${value.length} characters long; it must be at least ${MIN_TOKEN_CHARS} random characters`;
  if (new Set(value).size < MIN_DISTINCT_TOKEN_CHARS) return `repeats too few characters to be random; it must be at least ${MIN_TOKEN_CHARS} random characters`;
  return null;
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * GEMINI_BASE_URL carries the API key in a header: it must be https://, except plain http:// to this machine
 * (the local runtime's offline Gemini). Null when the URL is acceptable.
 */
export function geminiBaseUrlProblem(url: string): string | null {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#:]*|\[[^\]]*\])(?::\d+)?(?:[/?#]|$)/i.exec(url);
  if (!match || match[2] === '') return `must be an https:// URL (it is "${url}")`;
  const scheme = match[1].toLowerCase();
  if (scheme === 'https') return null;
  if (scheme === 'http' && LOOPBACK_HOST.test(match[2])) return null;
  return scheme === 'http'
    ? `must be https:// (plain http:// only to localhost or 127.0.0.1; it is "${url}"): the API key would travel unencrypted`
    : `must be an https:// URL (it is "${url}")`;
}

/** Every secret value a text leaving the system must not carry. */
export function secretValues(settings: Settings): string[] {
  return [settings.geminiApiKey, settings.webhookToken, settings.webhookTokenPrevious, settings.healthToken, settings.typeformToken].filter((value) => value !== '');
}
