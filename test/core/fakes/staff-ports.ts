// The ports a staff move needs (Queue, Log, Script Properties), in memory, over rows in the given statuses.
import { MemoryAudit, MemoryProperties, MemoryQueue } from '../memory-ports';
import { repliedRow } from './rows';

/** Rows 2, 3, … in `statuses`, each with a reply and event id `ev-<row>`. */
export function staffPorts(statuses: string[]) {
  const queue = new MemoryQueue(statuses.map((status, i) => repliedRow(status, { rowNumber: i + 2, eventId: `ev-${i + 2}` })));
  return { queue, audit: new MemoryAudit(), props: new MemoryProperties() };
}
