// processQueue's wiring: the tick gate and the script lock, then core's tick with the Apps Script adapters.
import { messageOf } from '../core/domain/failures/errors';
import { drainSpill } from '../core/intake/spill-drain';
import type { ProcessingSummary } from '../core/processing/process-run';
import { runQueueTick as runTick, type TickPorts, type Workspace } from '../core/runs/queue-tick';
import { redact } from '../core/domain/failures/redact';
import type { Settings } from '../core/domain/config/settings';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { decideTick, DIRTY_PROPERTY, hasSpilledDeliveries } from '../core/domain/queue/tick-gate';
import { createAuditLog } from './audit-log';
import { createConfigStore } from './config-store';
import { createGeminiClient } from './gemini-client';
import { watchGrid } from './grid-watch';
import { intakeDeps } from './intake-service';
import { intakeLock, scriptLock } from './locks';
import { createMailer } from './mailer';
import { createSentMailbox } from './sent-mailbox';
import { createBounceMailbox } from './bounce-mailbox';
import { readPayload } from './payloads';
import { createQueueStore } from './queue-store';
import { createScriptPropertyStore } from './script-properties';
import { spillFigures } from './spill-store';
import { createTallyStore } from './tally-store';
import { createJournalStore } from './journal-store';
import { createSuppressionList } from './suppression-store';
import { openSpreadsheet } from './spreadsheet';
import { scriptDateKey, scriptLocalClock, systemClock, systemRandom } from './system-clock';

export interface TickOutcome {
  ran: boolean;
  reason: string;
  summary?: ProcessingSummary;
}

/**
 * Never throws: an uncaught error in a clock trigger makes Google mail its own failure notice every
 * minute (see docs/platform.md#transient-service-errors), which is the flood triage exists to replace.
 */
export function runQueueTick(options: { force?: boolean } = {}): TickOutcome {
  const startedAt = systemClock.now();
  try {
    const props = createScriptPropertyStore();
    const snapshot = props.getAll();
    const gate = decideTick(snapshot, startedAt);
    if (!options.force && !gate.due) return { ran: false, reason: gate.reason };
    const lock = scriptLock();
    if (!lock.tryLock(0)) return { ran: false, reason: 'another processQueue run holds the script lock' };
    try {
      // Cleared before the Queue is read: a delivery landing during this run sets it again for the next tick.
      if (snapshot[DIRTY_PROPERTY] !== undefined) props.delete(DIRTY_PROPERTY);
      const ports: TickPorts = {
        props,
        clock: systemClock,
        random: systemRandom,
        mailer: createMailer(),
        sentMail: createSentMailbox(),
        bounceMail: createBounceMailbox(),
        localClock: scriptLocalClock(),
        // MailApp sends as the effective user, and the Gmail service searches its mailbox (docs/platform.md#who-runs-what).
        runningAccount: () => Session.getEffectiveUser().getEmail(),
        spill: spillFigures(),
        openWorkspace: (settings) => openWorkspace(settings, props, snapshot),
        dateKey: scriptDateKey,
        warn: (message) => console.warn(message),
      };
      return { ran: true, reason: gate.reason, summary: runTick(ports, snapshot, startedAt).summary };
    } finally {
      lock.release();
    }
  } catch (error) {
    console.error(`processQueue failed outside its guarded steps: ${redact(messageOf(error))}`);
    return { ran: false, reason: `error: ${redact(messageOf(error))}` };
  }
}

function openWorkspace(settings: Settings, props: ReturnType<typeof createScriptPropertyStore>, snapshot: Record<string, string>): Workspace {
  const spreadsheet = openSpreadsheet(settings);
  const intake = intakeDeps(props, snapshot);
  return {
    queue: createQueueStore(spreadsheet),
    config: createConfigStore(spreadsheet),
    gemini: createGeminiClient(settings.geminiBaseUrl, settings.geminiApiKey),
    audit: createAuditLog(spreadsheet),
    // A spill saved after the snapshot was read is drained by the next tick, which its keys make due (tick-gate.ts).
    drainSpill: () => (hasSpilledDeliveries(snapshot) ? void drainSpill(intake) : undefined),
    readPayload: (row) => readPayload(spreadsheet, row),
    intakeLock: intakeLock(),
    tally: createTallyStore(spreadsheet),
    journal: createJournalStore(spreadsheet),
    suppression: createSuppressionList(spreadsheet),
    spreadsheetUrl: () => spreadsheet.getUrl(),
    queueSheetId: () => spreadsheet.getSheetByName(SHEETS.queue)?.getSheetId() ?? null,
    watchCapacity: (incidents, now) => watchGrid(spreadsheet, props, incidents, snapshot, now),
  };
}
