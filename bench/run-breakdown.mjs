// Where a processQueue run's service calls go, step by step, from the runtime's ordered call trace (GasHost traceCalls).

/** The step a Log line's move belongs to, by the status it moves the row to (the Log's fourth column). */
const STEP_OF_LOG_MOVE = {
  GENERATING: 'generation claim',
  READY: 'verdict write',
  AWAITING_APPROVAL: 'verdict write',
  SENDING: 'send claim',
  SENT: 'SENT write',
};

/** Steps in the order a row meets them, then what each run pays once. */
export const STEPS = [
  'generation claim', 'Gemini', 'verdict write', 'send claim', 'mail', 'SENT write', 'other row moves',
  'send ledger lookup', 'Log headroom check', 'mail quota', 'Script Properties and lock', 'grid size (hourly)', 'run start and end',
];

/**
 * What each step is made of, for the table's reader. A write that carries two steps' moves (a batch held for the next
 * commit, src/core/processing/run-writes.ts holdBatch) counts its read, write and flush in the step of its first line.
 */
export const STEP_NOTES = {
  'generation claim': "one Log line a row; its write is the previous batch's SENT write (its own in a run's first round)",
  Gemini: "the claims' read-back, one fetchAll a round",
  'verdict write': 'compare-and-set read, write and flush of the replies and, in the same write, their send claims; one Log line a row',
  'send claim': "one Log line a row (the ledger line, in the Log before the mail); its write is the verdict's (its own for a reply written earlier)",
  mail: 'the read right before the mail (our claim, sent_at empty), the mail',
  'SENT write': "compare-and-set read, write and flush of a batch's outcomes and, in the same write, the next round's claims; one Log line a row",
  'other row moves': 'any other move and its Log line',
  'send ledger lookup': "one TextFinder over the Log's event_id column and the lines' rows",
  'Log headroom check': 'the Log sheet, its last row, the landing rows\' formats',
  'mail quota': 'MailApp.getRemainingDailyQuota, once a run',
  'Script Properties and lock': 'the tick gate, the Tally fold, the end\'s marks and incidents; the script lock',
  'grid size (hourly)': 'every sheet\'s rows and columns, once an hour (GRID_NEARLY_FULL)',
  'run start and end': 'open, Queue header and whole reads, Config, Archive, Tally, the last flush',
};

const WITHIN_STEP = new Set(['Range.getValues', 'Range.setValues', 'Sheet.getRange', 'SpreadsheetApp.flush']);

/** The move or side effect a row step leads to (a Log line, a Gemini fetch, a mail), or null. */
function anchorStep({ call, sheet, args }) {
  if (call === 'Sheet.appendRow' && sheet === 'Log') return STEP_OF_LOG_MOVE[String(args?.[0]?.[3] ?? '')] ?? 'other row moves';
  if (call === 'UrlFetchApp.fetchAll' || call === 'UrlFetchApp.fetch') return 'Gemini';
  if (call === 'MailApp.sendEmail') return 'mail';
  return null;
}

/** A call each run pays whatever its rows (the ledger, the Log's headroom, quota, properties, lock, grid), or null. */
function perRunStep({ call, sheet, args }) {
  if (call === 'MailApp.getRemainingDailyQuota') return 'mail quota';
  if (/^(Properties|Lock)\./.test(call)) return 'Script Properties and lock';
  if (call === 'Spreadsheet.getSheets' || call === 'Sheet.getMaxRows' || call === 'Sheet.getMaxColumns') return 'grid size (hourly)';
  if (call.startsWith('TextFinder.') || (sheet === 'Log' && (call === 'Range.getValues' || (call === 'Sheet.getRange' && args?.[0] === 'B:B')))) return 'send ledger lookup';
  if (sheet === 'Log' || (call === 'Spreadsheet.getSheetByName' && args?.[0] === 'Log')) return 'Log headroom check';
  return null;
}

/** The Queue's last row or header: the Queue read that follows is a whole-sheet read of the run's start or end. */
function startsWholeRead({ call, sheet, args }) {
  return sheet === 'Queue' && (call === 'Sheet.getLastRow' || (call === 'Sheet.getRange' && typeof args?.[0] === 'string'));
}

/** The step of each traced call of one run, in order: a row step's reads, writes and flushes go to the move or side effect they lead to. */
export function stepsOf(trace) {
  const steps = new Array(trace.length).fill(null);
  let pending = [];
  let wholeRead = false;
  trace.forEach((entry, i) => {
    const anchor = anchorStep(entry);
    if (anchor !== null) {
      for (const j of pending) steps[j] = anchor;
      pending = [];
      steps[i] = anchor;
      return;
    }
    const perRun = perRunStep(entry);
    if (perRun !== null) {
      steps[i] = perRun;
      return;
    }
    if (startsWholeRead(entry) || (wholeRead && entry.sheet === 'Queue' && entry.call === 'Sheet.getRange')) {
      wholeRead = true;
      steps[i] = 'run start and end';
    } else if (wholeRead && entry.sheet === 'Queue' && entry.call === 'Range.getValues') {
      wholeRead = false;
      steps[i] = 'run start and end';
    } else if (WITHIN_STEP.has(entry.call) && (entry.sheet === 'Queue' || entry.call === 'SpreadsheetApp.flush')) {
      pending.push(i);
    } else {
      steps[i] = 'run start and end';
    }
  });
  for (const j of pending) steps[j] = 'run start and end'; // the last flush, before the lock is released
  return steps;
}

/** Calls by step over runs, with each step's calls by method: { step: { calls, byMethod } }, steps in STEPS order. */
export function breakdownOf(runs) {
  const out = Object.fromEntries(STEPS.map((step) => [step, { calls: 0, byMethod: {} }]));
  for (const run of runs) {
    if (!run.trace) throw new Error('bench: the run has no call trace (start the runtime with host option traceCalls)');
    const steps = stepsOf(run.trace);
    run.trace.forEach(({ call }, i) => {
      const entry = out[steps[i]];
      entry.calls += 1;
      entry.byMethod[call] = (entry.byMethod[call] ?? 0) + 1;
    });
  }
  return out;
}
