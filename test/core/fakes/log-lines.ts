// A Log line of one claimed submission (evt-ledger), some minutes before T0: how the tests that read the Log as the send ledger write it.
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { MINUTE_MS } from '../../../src/core/domain/time';
import { T0 } from '../memory-ports';

export const ledgerLine = (minutesAgo: number, from: string, to: string, by = 'system'): LogEntry => ({
  at: T0 - minutesAgo * MINUTE_MS,
  eventId: 'evt-ledger',
  from,
  to,
  by,
  detail: '',
});
