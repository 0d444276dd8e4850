// The queue row's states: one ordered list gives the type, the sheet dropdown and the colours.

/** Every state a Queue row can be in, in the order a row usually moves through them. */
export const STATUSES = [
  'PENDING',
  'GENERATING',
  'READY',
  'AWAITING_APPROVAL',
  'APPROVED',
  'SENDING',
  'SENT',
  'NEEDS_REVIEW',
  'FAILED',
  'SKIPPED',
  'DUPLICATE',
  'TEST',
] as const;

export type Status = (typeof STATUSES)[number];

/** A row in one of these states will never be touched by the system again. */
export const FINISHED_STATUSES: readonly Status[] = ['SENT', 'SKIPPED', 'DUPLICATE', 'TEST'];

/** States that wait for a person: the system never moves a row out of them by itself. */
export const NEEDS_PERSON_STATUSES: readonly Status[] = ['NEEDS_REVIEW', 'FAILED', 'AWAITING_APPROVAL'];

/** States in which a step with an outside effect may be in flight. */
export const IN_FLIGHT_STATUSES: readonly Status[] = ['GENERATING', 'SENDING'];

/** Background colour per state in the Queue sheet (conditional formatting). */
export const STATUS_COLOURS: Readonly<Record<Status, string>> = {
  PENDING: '#fff2cc',
  GENERATING: '#cfe2f3',
  READY: '#d9ead3',
  AWAITING_APPROVAL: '#fce5cd',
  APPROVED: '#b6d7a8',
  SENDING: '#9fc5e8',
  SENT: '#93c47d',
  NEEDS_REVIEW: '#f4cccc',
  FAILED: '#ea9999',
  SKIPPED: '#d9d9d9',
  DUPLICATE: '#efefef',
  TEST: '#d9d2e9',
};

export function isStatus(value: unknown): value is Status {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
}
