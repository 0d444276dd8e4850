// Bounces and the suppression list as staff and the operator see them: Queue health, doGet and the daily summary.
import { suppressionIndex, type SuppressedEntry } from '../domain/mail/suppression';
import { plural } from '../domain/text';

/** What the health views show of bounces and the Suppressed sheet, besides the rows it stopped (QueueHealth). */
export interface MailFigures {
  /** Bounces of formqueue's replies whose notice arrived in the last 24 hours (by the hour); null when RECONCILE_BOUNCES is off. */
  bouncesLast24h: number | null;
  /** Addresses on the Suppressed sheet (one per mailbox); null when the sheet could not be read. */
  suppressedAddresses: number | null;
}

/**
 * The figures from what the caller holds: the bounce check's count (null when it is off) and a read of the Suppressed
 * sheet (null when the spreadsheet cannot be opened), which never throws here: a sheet that cannot be read is a figure
 * not known, not a failed health view.
 */
export function mailFigures(bouncesLast24h: number | null, readSuppressed: (() => readonly SuppressedEntry[]) | null): MailFigures {
  return { bouncesLast24h, suppressedAddresses: readSuppressed === null ? null : suppressedCount(readSuppressed) };
}

function suppressedCount(readSuppressed: () => readonly SuppressedEntry[]): number | null {
  try {
    return suppressionIndex(readSuppressed()).size;
  } catch {
    return null;
  }
}

/**
 * "2 bounces in the last 24 hours; 5 addresses on the Suppressed sheet; 1 row stopped because its address is
 * suppressed": one line for the dialog and the summary. A figure not known says so instead of a zero.
 */
export function mailFiguresLine(figures: MailFigures, rowsSuppressed: number): string {
  const bounces =
    figures.bouncesLast24h === null ? 'bounces not checked (RECONCILE_BOUNCES off)' : `${plural(figures.bouncesLast24h, 'bounce')} in the last 24 hours`;
  const addresses =
    figures.suppressedAddresses === null
      ? 'the Suppressed sheet could not be read'
      : `${plural(figures.suppressedAddresses, 'address', 'addresses')} on the Suppressed sheet`;
  const rows = `${plural(rowsSuppressed, 'row')} stopped because ${rowsSuppressed === 1 ? 'its address is' : 'their address is'} suppressed`;
  return `${bounces}; ${addresses}; ${rows}`;
}
