// The processQueue tick on in-memory ports, shared by its tests: a world to run it in, a tick, an incident as stored.
import type { Lock } from '../../../src/core/domain/ports';
import { runQueueTick } from '../../../src/core/runs/queue-tick';
import type { TickPorts, Workspace } from '../../../src/core/runs/tick-ports';
import { incidentKey } from '../../../src/core/triage/incidents';
import { memoryIntake } from '../intake/memory-intake';
import {
  FakeClock,
  fixedRandom,
  fixtureOutcome,
  MemoryAudit,
  MemoryConfig,
  MemoryGemini,
  MemoryMailer,
  MemoryQueue,
  MemoryTally,
  formConfig,
  MemoryProperties,
  pendingRow,
} from '../memory-ports';

export const SETTINGS = { GEMINI_API_KEY: 'AIzaSyTESTKEY0123456789abcdefghij', STAFF_EMAILS: 'duty@example.org', WEBHOOK_TOKEN: 'tok-0123456789abcdef-Qm7Xw2Vn5Rt8Yp' };

const freeLock = (): Lock => ({ tryLock: () => true, release: () => undefined });

export interface TickWorld {
  ports: TickPorts;
  props: MemoryProperties;
  queue: MemoryQueue;
  mailer: MemoryMailer;
  clock: FakeClock;
  warnings: string[];
  spill: { chars: number; count: number };
  tally: MemoryTally;
  openWorkspace: () => Workspace;
}

export function tickWorld(props: Record<string, string> = SETTINGS, rows = [pendingRow()]): TickWorld {
  const w = {
    props: new MemoryProperties(),
    queue: new MemoryQueue(rows),
    mailer: new MemoryMailer(),
    clock: new FakeClock(),
    warnings: [] as string[],
    spill: { chars: 0, count: 0 },
    tally: new MemoryTally(),
  } as TickWorld;
  w.props.values = { ...props };
  w.openWorkspace = () => ({
    queue: w.queue,
    config: new MemoryConfig([formConfig()]),
    gemini: new MemoryGemini(),
    audit: new MemoryAudit(),
    drainSpill: () => undefined,
    readPayload: (row) => row.payload,
    intakeLock: freeLock(),
    spreadsheetUrl: () => 'https://docs.google.com/spreadsheets/d/abc/edit',
    queueSheetId: () => 0,
    watchCapacity: () => undefined,
    tally: w.tally,
  });
  w.ports = {
    props: w.props,
    clock: w.clock,
    random: fixedRandom(0.5),
    mailer: w.mailer,
    spill: { size: () => w.spill.chars, count: () => w.spill.count },
    openWorkspace: () => w.openWorkspace(),
    dateKey: () => '2026-11-20',
    warn: (message) => void w.warnings.push(message),
  };
  return w;
}

export function tick(w: TickWorld) {
  return runQueueTick(w.ports, w.props.getAll(), w.clock.now());
}

export function incident(w: TickWorld, code: Parameters<typeof incidentKey>[0]): { state: string; detail: string; rows: number[] } | undefined {
  const stored = w.props.values[incidentKey(code)];
  return stored === undefined ? undefined : JSON.parse(stored);
}

/** doPost (memory intake) and processQueue sharing Script Properties, the Tally and the clock, on one UTC day. */
export function intakeAndTick(settings: Record<string, string> = SETTINGS) {
  const intake = memoryIntake({ props: settings });
  const w = tickWorld(settings, []);
  w.props.values = intake.props;
  w.tally = intake.tally;
  w.clock.time = Date.UTC(2026, 10, 21, 9, 0, 0);
  intake.deps.clock = w.clock;
  const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
  intake.deps.dateKey = utcDay;
  w.ports.dateKey = utcDay;
  return { intake, w, mails: () => w.mailer.outbox.filter((mail) => /Deliveries rejected/.test(mail.subject)) };
}

/** A run whose first model answers 404 (retired) and whose second writes the reply, spending ok.json's tokens. */
export function retiringWorld(props: Record<string, string> = {}) {
  const w = tickWorld({ ...SETTINGS, GEMINI_MODEL: 'old-model, gemini-3.5-flash', ...props });
  const gemini = new MemoryGemini();
  gemini.respond = (request) => (request.model === 'old-model' ? fixtureOutcome(404, 'error-404-model') : fixtureOutcome(200, 'ok'));
  const open = w.openWorkspace;
  w.openWorkspace = () => ({ ...open(), gemini });
  return w;
}
