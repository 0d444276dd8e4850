// Why deliveries were rejected, in the kinds the day's count keeps apart, and the one rule for when they make an incident.
import { plural } from '../text';

/**
 * Refused before the body is read as a delivery: counted against the day's room (rejection-tally.ts), since anyone
 * who finds the URL can send them. `malformed` includes bodies that came with our token but are not a delivery.
 */
export const UNREAD_KINDS = ['unauthorized', 'not_configured', 'malformed'] as const;
/**
 * A Typeform delivery, read and refused: kept in Rejected whatever the day's room, since it came with our token and
 * staff may accept it. Every one is counted too (before, only the kinds above were, so a second form wired to the
 * same URL filled Rejected without anyone hearing of it).
 */
export const DELIVERY_KINDS = ['unknown_form', 'field_too_large', 'internal_error', 'partial'] as const;

export type UnreadKind = (typeof UNREAD_KINDS)[number];
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export type RejectionKind = UnreadKind | DeliveryKind;
export type KindCounts = Partial<Record<RejectionKind, number>>;

/**
 * A respondent's finished submission refused although it came with our token: no reply goes out until staff accept
 * it from Rejected. Each one is news, so one is enough for an incident (REJECTED_DELIVERIES mails at most once a day).
 */
export const FINISHED_SUBMISSION_KINDS: readonly DeliveryKind[] = ['unknown_form', 'field_too_large', 'internal_error'];

/** Rejections in one calendar day that make an incident on their own (a token rotation gone wrong looks like this). */
export const REJECTED_INCIDENT_THRESHOLD = 10;

/** How a person reads each kind in a mail, in the order mails list them: what needs staff first. */
const KIND_LABELS: Readonly<Record<RejectionKind, string>> = {
  unknown_form: 'unknown form',
  field_too_large: 'field too large',
  internal_error: 'internal error',
  unauthorized: 'missing or wrong token',
  not_configured: 'WEBHOOK_TOKEN not set up',
  malformed: 'not a Typeform delivery',
  partial: 'partial response',
};

const ALL_KINDS = Object.keys(KIND_LABELS) as RejectionKind[];

export function isRejectionKind(value: unknown): value is RejectionKind {
  return (ALL_KINDS as unknown[]).includes(value);
}

/** Whether a Tally row of this kind claims room (and so counts as dropped when it claims none). Unknown: as before kinds, yes. */
export function claimsRoom(kind: RejectionKind | undefined): boolean {
  return kind === undefined || (UNREAD_KINDS as readonly string[]).includes(kind);
}

/** "unknown form 1, missing or wrong token 8, partial response 3": the kinds seen, each with its count. */
export function kindsLine(kinds: KindCounts): string {
  return ALL_KINDS.filter((kind) => (kinds[kind] ?? 0) > 0)
    .map((kind) => `${KIND_LABELS[kind]} ${kinds[kind]}`)
    .join(', ');
}

export function finishedSubmissionsRefused(kinds: KindCounts): number {
  return FINISHED_SUBMISSION_KINDS.reduce((sum, kind) => sum + (kinds[kind] ?? 0), 0);
}

/** The day's figures the rule reads (RejectedTotals has them). */
export interface DayRejections {
  count: number;
  dropped: number;
  kinds: KindCounts;
}

/**
 * The one rule for REJECTED_DELIVERIES: the incident's detail when the day's rejections make one, else null.
 * It opens for one finished submission refused with our token (a respondent waits), or for REJECTED_INCIDENT_THRESHOLD
 * rejections of any other kind. Partial responses never open it, alone or added to others: Typeform sends one for
 * every respondent who leaves a form unfinished whenever the webhook subscribes to them, which is Typeform working as
 * configured, and nobody waits for a reply to an unfinished form (the finished one arrives as its own delivery). A
 * busy form would otherwise mail staff every day. They are counted and named whenever the incident or the daily
 * summary speaks, so staff can turn them off in Typeform.
 */
export function rejectedIncidentDetail(day: DayRejections): string | null {
  const partials = day.kinds.partial ?? 0;
  if (finishedSubmissionsRefused(day.kinds) === 0 && day.count - partials < REJECTED_INCIDENT_THRESHOLD) return null;
  return `${rejectedSummary(day)}; see the Rejected sheet`;
}

/** "12 deliveries were rejected today (2 without their body): unknown form 1, …" (the kinds only when known). */
function rejectedSummary(day: DayRejections): string {
  const kinds = kindsLine(day.kinds);
  return `${plural(day.count, 'delivery was', 'deliveries were')} rejected today (${day.dropped} without their body)${kinds === '' ? '' : `: ${kinds}`}`;
}
