// AuditLog port → the Log sheet: entries appended in one batched write, every cell but the time as plain text.
import type { AuditLog, Lock, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { appendRows } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@'];
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;
/** Waiting longer would stall a staff edit; past it the line is written anyway (a rare overlap beats a lost line). */
const LOG_LOCK_WAIT_MS = 5000;

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail];
}

/**
 * `lock` serialises getLastRow + setValues with other writers of the sheet; pass none when the caller
 * already holds the lock that guards appends (processQueue does).
 */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, lock?: Lock): AuditLog {
  return {
    append(entries) {
      if (entries.length === 0) return;
      const sheet = requireSheet(spreadsheet, SHEETS.log);
      const locked = lock ? lock.tryLock(LOG_LOCK_WAIT_MS) : false;
      try {
        appendRows(sheet, entries.map(cells), LOG_FORMATS);
      } finally {
        if (locked && lock) lock.release();
      }
    },
  };
}
