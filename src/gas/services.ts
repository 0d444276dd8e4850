// The composition root: every port of one execution, built once and on first use, so a port that costs a Google call costs it only when a step needs it.
import type { Settings } from '../core/domain/config/settings';
import { readSettings } from '../core/domain/config/settings';
import type { Clock, Lock, PropertyStore, Random, SpillStore } from '../core/domain/ports';
import type { AuditLog, ConfigStore, QueueStore } from '../core/domain/sheet-ports';
import type { IntakeDeps } from '../core/intake/intake';
import { drainSpill } from '../core/intake/spill-drain';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { hasSpilledDeliveries } from '../core/domain/queue/tick-gate';
import type { TickPorts, Workspace } from '../core/runs/tick-ports';
import { createAuditLog } from './audit-log';
import { createBounceMailbox } from './bounce-mailbox';
import { createConfigStore } from './config-store';
import { createGeminiClient } from './gemini-client';
import { watchGrid } from './grid-watch';
import { intakeDeps } from './intake-service';
import { intakeLock } from './locks';
import { createJournalStore } from './journal-store';
import { createMailer } from './mailer';
import { readPayload } from './payloads';
import { createQueueStore } from './queue-store';
import { createScriptPropertyStore } from './script-properties';
import { createSentMailbox } from './sent-mailbox';
import { createSpillStore, spillFigures } from './spill-store';
import { openSpreadsheet } from './spreadsheet';
import { createSuppressionList } from './suppression-store';
import { scriptDateKey, scriptLocalClock, systemClock, systemRandom } from './system-clock';
import { createTallyStore } from './tally-store';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

export interface Services {
  clock: Clock;
  random: Random;
  /** Script Properties. */
  props(): PropertyStore;
  /** Every Script Property as read once by this execution (the tick gate, settings, incidents). */
  snapshot(): Record<string, string>;
  settings(): Settings;
  spreadsheet(): Spreadsheet;
  queue(): QueueStore;
  audit(): AuditLog;
  config(): ConfigStore;
  spill(): SpillStore;
  /** Intake's deps; `lock` is the intake lock with an explicit release unless given (doPost leaves it to its end). */
  intake(lock?: Lock): IntakeDeps;
  /** processQueue's ports (core/runs/queue-tick.ts), the spreadsheet side opened only once the run needs it. */
  tickPorts(): TickPorts;
  /** The person at the menu (Session.getActiveUser: empty for people outside the owner's domain). */
  user(): string;
}

export interface ServiceOptions {
  /**
   * Which spreadsheet: by default SPREADSHEET_ID (a web app and a clock trigger have no active one), else the bound one;
   * `active-first` for menus (they run inside the spreadsheet; from the editor SPREADSHEET_ID names it); an edit
   * passes the one it happened in.
   */
  spreadsheet?: 'active-first' | (() => Spreadsheet);
}

/** A value built on first use and kept for the execution. */
function once<T>(build: () => T): () => T {
  let built: { value: T } | null = null;
  return () => (built ??= { value: build() }).value;
}

export function createServices(options: ServiceOptions = {}): Services {
  const props = once(createScriptPropertyStore);
  const snapshot = once(() => props().getAll());
  const settings = once(() => readSettings(snapshot()).settings);
  const open = options.spreadsheet;
  let book: Spreadsheet | null = null;
  // Opened in this closure itself, not through a builder: a CODE_BUG stack (ten frames) must still reach processQueue.
  const spreadsheet = (): Spreadsheet =>
    (book ??= typeof open === 'function' ? open() : (open === 'active-first' ? SpreadsheetApp.getActiveSpreadsheet() : null) ?? openSpreadsheet(settings()));
  const services: Services = {
    clock: systemClock,
    random: systemRandom,
    props,
    snapshot,
    settings,
    spreadsheet,
    queue: once(() => createQueueStore(spreadsheet())),
    audit: once(() => createAuditLog(spreadsheet())),
    config: once(() => createConfigStore(spreadsheet())),
    spill: once(createSpillStore),
    intake: (lock) => intakeDeps(props(), snapshot(), lock),
    tickPorts: once(() => tickPorts(services)),
    user: once(() => Session.getActiveUser().getEmail()),
  };
  return services;
}

function tickPorts(services: Services): TickPorts {
  return {
    props: services.props(),
    clock: services.clock,
    random: services.random,
    mailer: createMailer(),
    sentMail: createSentMailbox(),
    bounceMail: createBounceMailbox(),
    localClock: scriptLocalClock(),
    // MailApp sends as the effective user, and the Gmail service searches its mailbox (docs/platform.md#who-runs-what).
    runningAccount: () => Session.getEffectiveUser().getEmail(),
    spill: spillFigures(),
    // Inline, not a named helper: one frame fewer in a CODE_BUG stack, which must still show processQueue.
    openWorkspace: (settings): Workspace => {
      const [book, props, snapshot] = [services.spreadsheet(), services.props(), services.snapshot()];
      return {
        queue: services.queue(),
        config: services.config(),
        gemini: createGeminiClient(settings.geminiBaseUrl, settings.geminiApiKey),
        audit: services.audit(),
        // A spill saved after the snapshot was read is drained by the next tick, which its keys make due (tick-gate.ts).
        drainSpill: () => (hasSpilledDeliveries(snapshot) ? void drainSpill(services.intake()) : undefined),
        readPayload: (row) => readPayload(book, row),
        intakeLock: intakeLock(),
        tally: createTallyStore(book),
        journal: createJournalStore(book),
        suppression: createSuppressionList(book),
        spreadsheetUrl: () => book.getUrl(),
        queueSheetId: () => book.getSheetByName(SHEETS.queue)?.getSheetId() ?? null,
        watchCapacity: (incidents, now) => watchGrid(book, props, incidents, snapshot, now),
      };
    },
    dateKey: scriptDateKey,
    warn: (message) => console.warn(message),
  };
}
