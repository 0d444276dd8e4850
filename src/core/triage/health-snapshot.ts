// The health snapshot: the last figures computed, kept in one Script Property (under 9 KB) for when Sheets is down, and read back.
import { redact } from '../domain/failures/redact';
import { STATUSES, isStatus, type Status } from '../domain/queue/statuses';
import { utf8Length } from '../domain/text';
import { NEEDS_PERSON_REASONS, type NeedsPersonReason } from './needs-person';
import { WAITING_STATUSES, assessUserImpact, emptyCounts, rowLink, type HealthFigures, type QueueHealth } from './health';

/** Where the caller keeps the last health it could compute (one Script Property, read when Sheets is down). */
export const HEALTH_SNAPSHOT_KEY = 'FQ_HEALTH';

/** The `error` cell as kept in the health snapshot: redacted first, then cut. */
const SNAPSHOT_ERROR_CHARS = 160;

interface HealthSnapshot {
  v: 1;
  at: number | null;
  c: Partial<Record<Status, number>>;
  u: number;
  p: number | null;
  w: number | null;
  n: number;
  /** rowsSuppressed (absent in a snapshot from before it: 0). */
  x?: number;
  /** Row number, status, then (since the needs-a-person fields) reason, event_id, mail_ref, error (redacted, cut), waiting since. */
  r: [number, string, string?, string?, string?, string?, (number | null)?][];
  s: string;
  g: number | null;
}

/** The figures only (links are rebuilt on reading), well under one property's 9 KB; `knownSecrets` are stripped from error cells. */
export function healthSnapshotToJson(health: QueueHealth, knownSecrets?: readonly string[]): string {
  const counts: Partial<Record<Status, number>> = {};
  for (const status of STATUSES) if (health.counts[status] > 0) counts[status] = health.counts[status];
  const snapshot: HealthSnapshot = {
    v: 1,
    at: health.countedAt,
    c: counts,
    u: health.unknownStatus,
    p: health.oldestPendingAt,
    w: health.oldestWaitingAt,
    n: health.needsPersonCount,
    x: health.rowsSuppressed,
    r: health.needsPerson.map((row) => [
      row.rowNumber,
      row.status.slice(0, 40),
      row.reason,
      row.eventId.slice(0, 80),
      row.mailRef.slice(0, 20),
      redact(row.error, knownSecrets).slice(0, SNAPSHOT_ERROR_CHARS),
      row.waitingSince,
    ]),
    s: health.spreadsheetUrl.slice(0, 500),
    g: health.sheetId,
  };
  let json = JSON.stringify(snapshot);
  while (utf8Length(json) > 8000 && snapshot.r.length > 0) {
    snapshot.r = snapshot.r.slice(0, Math.floor(snapshot.r.length / 2));
    json = JSON.stringify(snapshot);
  }
  return json;
}

/** A stored snapshot → the health it recorded (spill not included: it is told fresh each time); null if unreadable. */
export function healthSnapshotFromJson(json: string | null | undefined, now: number): QueueHealth | null {
  if (!json) return null;
  try {
    const raw = JSON.parse(json) as HealthSnapshot;
    if (!raw || raw.v !== 1) return null;
    const counts = emptyCounts();
    for (const status of STATUSES) counts[status] = Number(raw.c?.[status]) || 0;
    const url = typeof raw.s === 'string' ? raw.s : '';
    const sheetId = typeof raw.g === 'number' ? raw.g : null;
    const figures: HealthFigures = {
      readable: true,
      countedAt: typeof raw.at === 'number' ? raw.at : null,
      checkedAt: now,
      counts,
      unknownStatus: Number(raw.u) || 0,
      spilled: 0,
      waiting: WAITING_STATUSES.reduce((sum, status) => sum + counts[status], 0),
      oldestPendingAt: typeof raw.p === 'number' ? raw.p : null,
      oldestWaitingAt: typeof raw.w === 'number' ? raw.w : null,
      needsPersonCount: Number(raw.n) || 0,
      rowsSuppressed: Number(raw.x) || 0,
      needsPerson: (Array.isArray(raw.r) ? raw.r : []).map(([rowNumber, status, reason, eventId, mailRef, error, waitingSince]) => ({
        rowNumber,
        status,
        link: rowLink(url, sheetId, rowNumber),
        reason: storedReason(reason, status),
        eventId: typeof eventId === 'string' ? eventId : '',
        mailRef: typeof mailRef === 'string' ? mailRef : '',
        error: typeof error === 'string' ? error : '',
        waitingSince: typeof waitingSince === 'number' ? waitingSince : null,
      })),
      spreadsheetUrl: url,
      sheetId,
    };
    return { ...figures, userImpact: assessUserImpact(figures, now) };
  } catch {
    return null;
  }
}

/** A snapshot written before reasons were kept (or a reason renamed since) reads as the status's general case. */
function storedReason(reason: unknown, status: string): NeedsPersonReason {
  if ((NEEDS_PERSON_REASONS as readonly unknown[]).includes(reason)) return reason as NeedsPersonReason;
  if (status === 'NEEDS_REVIEW') return 'parked-by-edit';
  if (status === 'AWAITING_APPROVAL') return 'approval-overdue';
  return isStatus(status) ? 'failed-other' : 'unknown-status';
}
