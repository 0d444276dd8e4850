// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text; a run's lines batched.
import type { AuditLog, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { appendRows } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@'];
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail];
}

/** No lock: each line is one atomic appendRow (sheet-append.ts), so writers running as anyone cannot overwrite one another. */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog {
  return {
    append(entries) {
      if (entries.length === 0) return;
      appendRows(requireSheet(spreadsheet, SHEETS.log), entries.map(cells), LOG_FORMATS);
    },
  };
}

/** Lines a run holds before it writes them: bounded, so a run that is killed loses at most this many Log lines. */
const RUN_LOG_BATCH = 25;

/**
 * The Log of one processQueue run: lines are held and written together (one Log lookup and one headroom check per
 * batch instead of per line: about 3 service calls saved per line) when RUN_LOG_BATCH are waiting and when the run
 * ends (`flush`). Each line is still its own appendRow, so other writers are never overwritten. The Queue row, not
 * the Log, is the record of what happened: a run killed mid-way loses at most a batch of audit lines.
 */
export function createRunAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog & { flush(): void } {
  const direct = createAuditLog(spreadsheet);
  let held: LogEntry[] = [];
  const flush = () => {
    if (held.length === 0) return;
    const batch = held;
    held = [];
    direct.append(batch);
  };
  return {
    append(entries) {
      held.push(...entries);
      if (held.length >= RUN_LOG_BATCH) flush();
    },
    flush,
  };
}
