// Errors with a stable code: everything classifies by `code`, never by `instanceof` (vm realms, Apps Script errors).

import { ERROR_CODES, type ErrorCode } from './codes';

export type { ErrorCode };

export interface CodedError extends Error {
  code: ErrorCode;
}

export function codedError(code: ErrorCode, message: string): CodedError {
  const error = new Error(message) as CodedError;
  error.name = 'FormqueueError';
  error.code = code;
  return error;
}

/** The code of any thrown value: ours carry one; anything else is a code bug unless a classifier says otherwise. */
export function codeOf(thrown: unknown): ErrorCode | undefined {
  const code = (thrown as { code?: unknown } | null)?.code;
  return (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : undefined;
}

export function messageOf(thrown: unknown): string {
  if (thrown && typeof thrown === 'object' && 'message' in thrown) return String((thrown as { message: unknown }).message);
  return String(thrown);
}

/**
 * Apps Script reports a failing spreadsheet service with plain errors whose message is all we have
 * (docs/platform.md#transient-service-errors: "Service Spreadsheets failed while accessing document…", "Error code INTERNAL", timeouts).
 */
const SHEETS_OUTAGE_PATTERNS = [
  /Service Spreadsheets/i,
  /Error code INTERNAL/i,
  /Service error: Spreadsheets/i,
  /timed out/i,
  /Service unavailable/i,
  /We're sorry, a server error occurred/i,
  /too many times in a short time: (spreadsheets|sheets)/i,
];

export function isSheetsOutage(thrown: unknown): boolean {
  if (codeOf(thrown) === 'SHEETS_UNAVAILABLE') return true;
  const message = messageOf(thrown);
  return SHEETS_OUTAGE_PATTERNS.some((pattern) => pattern.test(message));
}
