// What an error that ended a run means, in one classifier: a Sheets outage, a missing piece of setup, or our own bug.
import type { IncidentCode } from './codes';
import { codeOf, isSheetsOutage, messageOf } from './errors';
import { redact } from './redact';

export type RunFailure = 'sheets-unavailable' | 'config-missing' | 'code-bug';

const MAX_BUG_DETAIL_CHARS = 2000;

export function classifyRunFailure(error: unknown): RunFailure {
  if (isSheetsOutage(error)) return 'sheets-unavailable';
  // A missing sheet or column is a setup problem staff can fix (Set up / repair), not a bug of ours.
  if (codeOf(error) === 'CONFIG_MISSING') return 'config-missing';
  return 'code-bug';
}

const INCIDENT_OF: Readonly<Record<RunFailure, IncidentCode>> = {
  'sheets-unavailable': 'SHEETS_UNAVAILABLE',
  'config-missing': 'CONFIG_MISSING',
  'code-bug': 'CODE_BUG',
};

/** The incident a failed run raises, with its redacted detail: the message, or for a bug the stack the maintainer needs. */
export function failureIncident(error: unknown, secrets: readonly string[]): { failure: RunFailure; code: IncidentCode; detail: string } {
  const failure = classifyRunFailure(error);
  if (failure !== 'code-bug') return { failure, code: INCIDENT_OF[failure], detail: redact(messageOf(error), secrets) };
  const stack = (error as { stack?: unknown } | null)?.stack;
  const detail = redact(typeof stack === 'string' && stack !== '' ? stack : messageOf(error), secrets);
  return { failure, code: 'CODE_BUG', detail: `processQueue: ${detail.slice(0, MAX_BUG_DETAIL_CHARS)}` };
}
