// Self-test verdicts on the account and its spreadsheet: each platform assumption formqueue rests on (plain text, TextFinder, who runs it, triggers, mail quota), judged from what the probes observed; the services are in service-checks.ts.
import { probeFailed, shortEvidence, type CheckResult, type Probe } from './check-result';

/** Values a respondent might type that Sheets would turn into a number, a date, a boolean or a formula. */
export const PLAIN_TEXT_SAMPLES: readonly string[] = ['007', '+4915112345678', '2026-01-02', 'TRUE', '=1+1', '1e5'];

export interface PlainTextObservation {
  /** What getValues returned for the appended row, in the order of PLAIN_TEXT_SAMPLES. */
  read: readonly unknown[];
  /** getNumberFormats of the same cells. */
  formats: readonly string[];
}

export function judgePlainText(probe: Probe<PlainTextObservation>): CheckResult {
  const title = 'Plain-text format holds on appended rows';
  if (!probe.ok) return probeFailed('plain-text', title, probe.error, 'Run the self-test again; if it keeps failing, Sheets refused the scratch sheet (see the error).');
  const changed = PLAIN_TEXT_SAMPLES.map((typed, i) => ({ typed, read: probe.value.read[i], format: probe.value.formats[i] }))
    .filter((cell) => cell.read !== cell.typed);
  const evidence = PLAIN_TEXT_SAMPLES.map((typed, i) => `${JSON.stringify(typed)} → ${describe(probe.value.read[i])} (${JSON.stringify(probe.value.formats[i] ?? '')})`).join(', ');
  if (changed.length === 0) return { id: 'plain-text', title, verdict: 'pass', evidence };
  return {
    id: 'plain-text', title, verdict: 'fail', evidence,
    advice: 'Sheets converted text that formqueue writes with the "@" (plain text) format first. Answers such as phone numbers, '
      + 'dates or "=…" would be stored changed. Report this with the evidence; until then, read answers in the payload column.',
  };
}

function describe(value: unknown): string {
  if (value instanceof Date) return `a date (${value.toISOString()})`;
  if (typeof value === 'string') return JSON.stringify(value);
  return `${typeof value} ${String(value)}`;
}

/** Cells of the scratch column: the needle once, and cells that differ only in case or by a suffix. */
export function textFinderCells(needle: string): string[] {
  return [needle.toLowerCase(), `${needle}-more`, needle, `x${needle}`];
}

export interface TextFinderObservation {
  needle: string;
  /** Rows (1-based, within the scratch column) findAll returned. */
  matchedRows: readonly number[];
  /** The row where the needle itself was written. */
  expectedRow: number;
}

export function judgeTextFinder(probe: Probe<TextFinderObservation>): CheckResult {
  const title = 'TextFinder matches whole cells, case-sensitively';
  if (!probe.ok) return probeFailed('text-finder', title, probe.error, 'Run the self-test again; the scratch sheet could not be searched.');
  const { needle, matchedRows, expectedRow } = probe.value;
  const evidence = `findAll(${JSON.stringify(needle)}) with matchEntireCell(true).matchCase(true) over ${JSON.stringify(textFinderCells(needle))} `
    + `returned row(s) ${matchedRows.join(', ') || 'none'}; expected only row ${expectedRow}`;
  if (matchedRows.length === 1 && matchedRows[0] === expectedRow) return { id: 'text-finder', title, verdict: 'pass', evidence };
  return {
    id: 'text-finder', title, verdict: 'fail', evidence,
    advice: 'Duplicate detection looks an event_id up with this TextFinder: a wrong match could call a new submission a duplicate, '
      + 'a missed one could queue a redelivery twice (the reply would still be sent only once per row). Report it with the evidence.',
  };
}

export interface IdentityObservation {
  /** Session.getActiveUser(): the person running the self-test ('' when Google does not reveal it). */
  activeUser: string;
  /** Who the web app runs as (its doGet identity view), or why that could not be read. */
  webApp: Probe<string>;
}

export function judgeIdentity(probe: IdentityObservation): CheckResult {
  const title = 'You (running this) and the account the web app runs as';
  const me = probe.activeUser || '(not revealed by Google)';
  if (!probe.webApp.ok) {
    return { id: 'identity', title, verdict: 'unknown', evidence: `you: ${me}; the web app could not be asked: ${shortEvidence(probe.webApp.error)}`,
      advice: 'See the web-app check below: until the web app answers, formqueue cannot tell who it runs as.' };
  }
  const deployer = probe.webApp.value;
  const evidence = `you: ${me}; the web app runs as: ${deployer || '(not revealed)'}`;
  if (probe.activeUser === '' || deployer === '') {
    return { id: 'identity', title, verdict: 'unknown', evidence,
      advice: 'Google hides one of the two addresses (for example a consumer account running a script it does not own). Make sure the account that ran `npm run deploy` also runs Set up / repair.' };
  }
  if (probe.activeUser.toLowerCase() === deployer.toLowerCase()) return { id: 'identity', title, verdict: 'pass', evidence: `${evidence} (the same account)` };
  return {
    id: 'identity', title, verdict: 'fail', evidence,
    advice: `You are not the deploying account. Triggers you create run as you, not as ${deployer}: their mail counts against your quota, `
      + 'and intake\'s user lock does not serialise your triggers with the web app. Let the deploying account run Set up / repair (and this self-test), '
      + 'and delete triggers you created (Apps Script editor → Triggers).',
  };
}

export interface TriggerObservation {
  handler: string;
  type: string;
}

/** The triggers Set up installs; ScriptApp.getProjectTriggers() lists only the running user's own. */
export const REQUIRED_TRIGGERS: readonly TriggerObservation[] = [
  { handler: 'processQueue', type: 'CLOCK' },
  { handler: 'onEditInstallable', type: 'ON_EDIT' },
];

export function judgeTriggers(probe: Probe<readonly TriggerObservation[]>, identity: CheckResult): CheckResult {
  const title = 'The triggers exist for the deploying account';
  if (!probe.ok) return probeFailed('triggers', title, probe.error, 'Run Set up / repair, then the self-test again.');
  const listed = probe.value.map((t) => `${t.handler} (${t.type})`).join(', ') || 'none';
  const missing = REQUIRED_TRIGGERS.filter((want) => !probe.value.some((t) => t.handler === want.handler && t.type === want.type));
  const extra = REQUIRED_TRIGGERS.filter((want) => probe.value.filter((t) => t.handler === want.handler).length > 1);
  const evidence = `your triggers on this project: ${listed}`;
  if (identity.verdict === 'fail') {
    return { id: 'triggers', title, verdict: 'unknown', evidence,
      advice: 'Apps Script lists only the triggers of the account running the self-test, and that is not the deploying account (see above): run the self-test as the deploying account.' };
  }
  if (missing.length === 0 && extra.length === 0) {
    return { id: 'triggers', title, verdict: identity.verdict === 'pass' ? 'pass' : 'unknown', evidence,
      ...(identity.verdict === 'pass' ? {} : { advice: 'They are yours; whether you are the deploying account is unknown (see above).' }) };
  }
  const problem = [missing.length ? `missing: ${missing.map((t) => t.handler).join(', ')}` : '', extra.length ? `duplicated: ${extra.map((t) => t.handler).join(', ')}` : '']
    .filter(Boolean).join('; ');
  return { id: 'triggers', title, verdict: 'fail', evidence: `${evidence} (${problem})`,
    advice: 'Run formqueue → Set up / repair as the deploying account: it creates exactly one of each and removes duplicates. Without processQueue nothing is answered.' };
}

export function judgeMailQuota(probe: Probe<number>): CheckResult {
  const title = 'The mail quota can be read';
  if (!probe.ok) {
    return { id: 'mail-quota', title, verdict: 'fail', evidence: `MailApp.getRemainingDailyQuota() threw: ${shortEvidence(probe.error)}`,
      advice: 'Without it formqueue cannot check the quota before a send. Run Set up / repair to grant the mail scope, then try again.' };
  }
  const evidence = `MailApp.getRemainingDailyQuota() = ${probe.value}`;
  if (probe.value > 0) return { id: 'mail-quota', title, verdict: 'pass', evidence: `${evidence} recipients left today` };
  return { id: 'mail-quota', title, verdict: 'fail', evidence,
    advice: 'No mail can be sent until the quota resets (24 hours after the first send of the day). Replies wait as READY and go out after that, once each.' };
}
