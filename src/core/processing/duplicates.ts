// The processing side's dedupe layer: rows whose submission is already answered elsewhere become DUPLICATE.
import { hasBeenMailed } from '../domain/mail/mail-guard';
import type { QueueRow } from '../domain/queue/queue-row';
import { keyStrings, submissionKeys } from '../domain/queue/submission-keys';
import { COLLAPSIBLE_STATUSES } from '../domain/queue/transitions';

export interface DuplicateFinding {
  row: QueueRow;
  /** Where the same submission already is, for the row's error cell. */
  original: string;
}

const keysOf = keyStrings;

/** The Archive's keys are bare values (QueueStore.archivedKeys): looked up by value. */
function archivedValuesOf(row: QueueRow): string[] {
  return submissionKeys(row).map((key) => key.value);
}

function isCollapsible(row: QueueRow): boolean {
  return (COLLAPSIBLE_STATUSES as readonly string[]).includes(row.status) && !hasBeenMailed(row);
}

/**
 * Rows to collapse. A row that has gone further (generating, sending, sent, a person's state) owns its keys
 * wherever it sits, so a redelivery is never answered beside it; among rows that have not started, the earliest
 * wins. Archived keys count as well. `archivedKeys` is read only when needed.
 * A DUPLICATE row owns nothing: it names the row that answers its submission, and that row may not have started
 * yet (it is collapsible until it is claimed). Were DUPLICATE rows owners, a later run would collapse the one row
 * left to answer into them, and the submission would end with no answer at all.
 */
export function findDuplicates(rows: readonly QueueRow[], archivedKeys: () => ReadonlySet<string>): DuplicateFinding[] {
  const committed = new Map<string, QueueRow>();
  for (const row of rows) {
    if (isCollapsible(row) || row.status === 'DUPLICATE') continue;
    for (const key of keysOf(row)) if (!committed.has(key)) committed.set(key, row);
  }
  const candidates = rows.filter(isCollapsible);
  if (candidates.length === 0) return [];
  const archived = archivedKeys();
  const earlier = new Map<string, QueueRow>();
  const findings: DuplicateFinding[] = [];
  for (const row of candidates) {
    const keys = keysOf(row);
    const owner = keys.map((key) => committed.get(key) ?? earlier.get(key)).find((hit) => hit !== undefined);
    if (owner) {
      findings.push({ row, original: `row ${owner.rowNumber} (event ${owner.eventId || owner.responseToken})` });
      continue;
    }
    if (archivedValuesOf(row).some((key) => archived.has(key))) {
      findings.push({ row, original: 'the Archive sheet' });
      continue;
    }
    for (const key of keys) earlier.set(key, row);
  }
  return findings;
}
