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

/** States that wait for a person: the system moves a row out of none of them by itself, but for the Sent check's NEEDS_REVIEW → SENT, READY or APPROVED. */
export const NEEDS_PERSON_STATUSES: readonly Status[] = ['NEEDS_REVIEW', 'FAILED', 'AWAITING_APPROVAL'];

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

/** What each state means, in a line for staff (docs/states.md prints these). */
export const STATUS_MEANING: Readonly<Record<Status, string>> = {
  PENDING: 'waiting for a reply to be written',
  GENERATING: 'Gemini is writing the reply',
  READY: 'reply written, waiting to be mailed',
  AWAITING_APPROVAL: 'reply written, waits for a person to approve it',
  APPROVED: 'approved by staff, waiting to be mailed',
  SENDING: 'the mail is being sent',
  SENT: 'mailed; finished',
  NEEDS_REVIEW: 'the mail may or may not have reached the person; a person must check',
  FAILED: 'could not be answered automatically; the `error` cell says why',
  SKIPPED: 'a person decided not to answer; finished',
  DUPLICATE: 'the same submission is already answered by another row (or is in Archive); finished',
  TEST: "Typeform's test delivery; never generated or mailed; finished",
};

export function isStatus(value: unknown): value is Status {
  return (STATUSES as readonly unknown[]).includes(value);
}
