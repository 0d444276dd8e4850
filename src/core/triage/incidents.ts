// Incidents in Script Properties (they must work while Sheets is down): fold repeats, clear, and persist in one batch.
import { INCIDENT_CODES } from '../domain/failures/codes';
import type { Clock, IncidentSink, PropertyStore } from '../domain/ports';
import type { IncidentCode } from '../domain/failures/codes';
import { redact } from '../domain/failures/redact';
import { hasFollowUps } from './incident-catalog';
import { HEALTH_SNAPSHOT_KEY, healthSnapshotFromJson, healthSnapshotToJson } from './health-snapshot';
import type { QueueHealth } from './health';
import {
  DAILY_SUMMARY_SENT_KEY,
  INCIDENT_HISTORY_KEY,
  MAX_DETAIL_CHARS,
  MAX_ROWS_KEPT,
  historyFromJson,
  incidentFromJson,
  incidentKey,
  incidentToJson,
  isNotifiable,
  mergeRows,
} from './incident-record';
import type { Incident, IncidentHistoryEntry, MailKind } from './incident-record';
import { HOUR_MS, MINUTE_MS } from '../domain/time';

export * from './incident-record';

const MAX_HISTORY_ENTRIES = 40;
const HISTORY_KEEP_MS = 48 * HOUR_MS;
const MAX_CAUGHT_UP_KINDS = 6;
/** An unchanged health snapshot is rewritten only this often, so "last read N min ago" stays honest cheaply. */
const HEALTH_REFRESH_MS = 15 * MINUTE_MS;

export interface IncidentBookOptions {
  /** Secret values to strip from every detail (API key, webhook tokens). */
  knownSecrets?: readonly string[];
  /** The properties already read this execution (props.getAll()), to save a service call. */
  properties?: Readonly<Record<string, string>>;
}

/**
 * The incidents of one execution: load once, raise/clear/markMailed in memory, then commit() once.
 * Implements IncidentSink, so processing and intake report into it directly.
 */
export class IncidentBook implements IncidentSink {
  private readonly incidents = new Map<IncidentCode, Incident>();
  /** As loaded: what earlier executions left, untouched by this one's raises. */
  private readonly loaded = new Map<IncidentCode, Incident>();
  private readonly dirty = new Set<IncidentCode>();
  private readonly removed = new Set<IncidentCode>();
  private readonly raisedThisRun = new Set<IncidentCode>();
  /** Per code, raises added by this execution: what commit() adds onto a newer stored copy. */
  private readonly countDelta = new Map<IncidentCode, number>();
  private history: IncidentHistoryEntry[];
  private historyDirty = false;
  private dailySummarySent: string;
  private dailySummaryDirty = false;
  private readonly knownSecrets: readonly string[];
  private storedHealthJson: string | undefined;
  private healthJson: string | null = null;

  constructor(
    private readonly props: PropertyStore,
    private readonly clock: Clock,
    options: IncidentBookOptions = {},
  ) {
    this.knownSecrets = options.knownSecrets ?? [];
    const stored = options.properties ?? props.getAll();
    for (const code of INCIDENT_CODES) {
      const json = stored[incidentKey(code)];
      const incident = json ? incidentFromJson(json) : null;
      if (incident) {
        this.incidents.set(code, incident);
        this.loaded.set(code, incident);
      }
    }
    this.history = historyFromJson(stored[INCIDENT_HISTORY_KEY]);
    this.dailySummarySent = stored[DAILY_SUMMARY_SENT_KEY] ?? '';
    this.storedHealthJson = stored[HEALTH_SNAPSHOT_KEY];
  }

  raise(code: IncidentCode, detail: string, rowNumbers: readonly number[] = []): void {
    const now = this.clock.now();
    const shortDetail = redact(detail, this.knownSecrets).slice(0, MAX_DETAIL_CHARS);
    const current = this.incidents.get(code);
    const firstRaiseThisRun = !this.raisedThisRun.has(code);
    this.raisedThisRun.add(code);
    this.removed.delete(code);
    this.countDelta.set(code, (this.countDelta.get(code) ?? 0) + 1);
    if (!current) {
      const rows = mergeRows([], rowNumbers);
      this.incidents.set(code, {
        code,
        firstSeen: now,
        lastSeen: now,
        count: 1,
        runs: 1,
        rows: rows.slice(0, MAX_ROWS_KEPT),
        rowCount: rows.length,
        detail: shortDetail,
        lastMailedAt: null,
        mailsSent: 0,
        state: 'open',
        clearedAt: null,
      });
    } else {
      const rows = mergeRows(current.rows, rowNumbers);
      // Only real row numbers count: rowCount is a lower bound, never an overcount.
      const reported = mergeRows([], rowNumbers).length;
      // A cleared incident that comes back before its recovery mail is the same incident, still open.
      this.incidents.set(code, {
        ...current,
        lastSeen: now,
        count: current.count + 1,
        runs: current.runs + (firstRaiseThisRun ? 1 : 0),
        rows: rows.slice(0, MAX_ROWS_KEPT),
        rowCount: Math.max(current.rowCount, rows.length, reported),
        detail: shortDetail || current.detail,
        state: 'open',
        clearedAt: null,
      });
    }
    this.dirty.add(code);
  }

  /**
   * The condition is gone. `caughtUp` counts what this run caught up (e.g. {"replies sent": 3}); they add up
   * until the recovery mail. An incident staff never heard of and never would (a passing rate limit) is dropped.
   */
  clear(code: IncidentCode, caughtUp: Readonly<Record<string, number>> = {}): void {
    const current = this.incidents.get(code);
    if (!current) return;
    if (current.mailsSent === 0 && !isNotifiable(current)) {
      this.drop(code, false);
      return;
    }
    // No recovery mail will follow: it ends now, and the daily summary lists it from the history.
    if (!hasFollowUps(code)) {
      this.drop(code, true);
      return;
    }
    const merged: Record<string, number> = { ...(current.caughtUp ?? {}) };
    for (const [kind, count] of Object.entries(caughtUp)) {
      if (!(count > 0)) continue;
      if (!(kind in merged) && Object.keys(merged).length >= MAX_CAUGHT_UP_KINDS) continue;
      merged[kind] = (merged[kind] ?? 0) + count;
    }
    const addsCaughtUp = Object.values(caughtUp).some((count) => count > 0);
    if (current.state === 'cleared' && !addsCaughtUp) return; // nothing new: no property write
    this.incidents.set(code, {
      ...current,
      state: 'cleared',
      clearedAt: current.state === 'cleared' ? current.clearedAt : this.clock.now(),
      caughtUp: Object.keys(merged).length > 0 ? merged : undefined,
    });
    this.dirty.add(code);
  }

  /** Call only after the mail went out. A recovery mail ends the incident (it moves to the history). */
  markMailed(code: IncidentCode, kind: MailKind, at: number = this.clock.now()): void {
    const current = this.incidents.get(code);
    if (!current) return;
    if (kind === 'recovery') {
      this.drop(code, true);
      return;
    }
    this.incidents.set(code, { ...current, lastMailedAt: at, mailsSent: current.mailsSent + 1 });
    this.dirty.add(code);
  }

  /** IncidentSink.persistNow: this execution's changes so far, in one write (commit() again at the end writes the rest). */
  persistNow(): void {
    this.commit();
  }

  priorOpen(code: IncidentCode): { runs: number; rowCount: number } | null {
    const before = this.loaded.get(code);
    return before && before.state === 'open' ? { runs: before.runs, rowCount: before.rowCount } : null;
  }

  get(code: IncidentCode): Incident | undefined {
    return this.incidents.get(code);
  }

  /** Every incident, open or cleared and not yet announced as resolved. */
  all(): Incident[] {
    return Array.from(this.incidents.values());
  }

  openIncidents(): Incident[] {
    return this.all().filter((incident) => incident.state === 'open');
  }

  /** Resolved incidents of the last two days (for the daily summary). */
  recentHistory(): IncidentHistoryEntry[] {
    return this.history.slice();
  }

  lastDailySummaryDate(): string {
    return this.dailySummarySent;
  }

  markDailySummarySent(dateKey: string): void {
    this.dailySummarySent = dateKey;
    this.dailySummaryDirty = true;
  }

  /** The health last remembered (by this run or an earlier one): what triage uses while Sheets is down. */
  lastKnownHealth(now: number = this.clock.now()): QueueHealth | null {
    return healthSnapshotFromJson(this.healthJson ?? this.storedHealthJson, now);
  }

  /** Keeps a freshly computed health for runs that cannot read the queue; written with the next commit if it changed. */
  rememberHealth(health: QueueHealth): void {
    if (!health.readable) return;
    const json = healthSnapshotToJson(health, this.knownSecrets);
    const previous = healthSnapshotFromJson(this.storedHealthJson, health.checkedAt);
    const recent = previous !== null && health.checkedAt - (previous.countedAt ?? 0) < HEALTH_REFRESH_MS;
    if (recent && withoutTime(this.storedHealthJson ?? '') === withoutTime(json)) return;
    this.healthJson = json;
  }

  hasChanges(): boolean {
    // A history change always comes with a removal (drop), so `removed` stands for it.
    return this.dirty.size > 0 || this.removed.size > 0 || this.dailySummaryDirty || this.healthJson !== null;
  }

  /**
   * Persists this execution's changes: one setMany (plus a delete per ended incident, rare).
   * Pass `latest` (a fresh props.getAll(), read under the script lock) when another execution may have
   * written meanwhile, e.g. doPost beside processQueue: its counts and mail marks are kept, not overwritten.
   * `also`: other properties of the execution, written in the same call (one setProperties instead of two).
   */
  commit(latest?: Readonly<Record<string, string>>, also: Readonly<Record<string, string>> = {}): void {
    const now = this.clock.now();
    const values: Record<string, string> = { ...also };
    for (const [code, mine] of this.incidents) {
      if (!this.dirty.has(code)) continue;
      const theirs = latest?.[incidentKey(code)] ? incidentFromJson(latest[incidentKey(code)]) : null;
      values[incidentKey(code)] = incidentToJson(theirs ? this.mergeOnto(theirs, mine) : mine);
    }
    if (this.historyDirty) {
      this.history = this.history.filter((entry) => now - entry.clearedAt <= HISTORY_KEEP_MS).slice(-MAX_HISTORY_ENTRIES);
      values[INCIDENT_HISTORY_KEY] = JSON.stringify(this.history);
    }
    if (this.dailySummaryDirty) values[DAILY_SUMMARY_SENT_KEY] = this.dailySummarySent;
    if (this.healthJson !== null) values[HEALTH_SNAPSHOT_KEY] = this.healthJson;
    if (Object.keys(values).length > 0) this.props.setMany(values);
    for (const code of this.removed) this.props.delete(incidentKey(code));
    this.dirty.clear();
    this.removed.clear();
    this.countDelta.clear();
    this.historyDirty = false;
    this.dailySummaryDirty = false;
    if (this.healthJson !== null) this.storedHealthJson = this.healthJson;
    this.healthJson = null;
  }

  private drop(code: IncidentCode, keepInHistory: boolean): void {
    const current = this.incidents.get(code);
    this.incidents.delete(code);
    this.dirty.delete(code);
    this.removed.add(code);
    if (current && keepInHistory) {
      this.history.push({ code, firstSeen: current.firstSeen, clearedAt: current.clearedAt ?? this.clock.now(), count: current.count });
      this.historyDirty = true;
    }
  }

  /** Another execution's newer copy plus what this one added: counts add, times widen, mail marks never go back. */
  private mergeOnto(theirs: Incident, mine: Incident): Incident {
    const rows = mergeRows(theirs.rows, mine.rows);
    const delta = this.countDelta.get(mine.code) ?? 0;
    const latestMail = Math.max(theirs.lastMailedAt ?? 0, mine.lastMailedAt ?? 0);
    return {
      ...mine,
      firstSeen: Math.min(theirs.firstSeen, mine.firstSeen),
      lastSeen: Math.max(theirs.lastSeen, mine.lastSeen),
      count: Math.max(mine.count, theirs.count + delta),
      runs: Math.max(mine.runs, theirs.runs + (this.raisedThisRun.has(mine.code) ? 1 : 0)),
      rows, // incidentToJson keeps the lowest MAX_ROWS_KEPT
      rowCount: Math.max(theirs.rowCount, mine.rowCount, rows.length),
      lastMailedAt: latestMail > 0 ? latestMail : null,
      mailsSent: Math.max(theirs.mailsSent, mine.mailsSent),
    };
  }
}

function withoutTime(snapshotJson: string): string {
  return snapshotJson.replace(/^\{"v":1,"at":[^,]*,/, '{');
}
