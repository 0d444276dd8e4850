// What one processQueue run did, in the words "Process now" shows staff: the counts, and why it stopped when not done.
import type { ProcessingSummary } from '../processing/process-run';
import type { StopReason } from '../processing/run-context';

/** Why a run stopped, for the person who pressed Process now: what happens next, or what to do; '' when it finished. */
const STOPPED_BECAUSE: Readonly<Record<StopReason, string>> = {
  done: '',
  paused: 'formqueue is paused: nothing is written or mailed until someone chooses formqueue → Resume.',
  budget: "The run's time was used up; the next run (within a minute) goes on where it stopped.",
  'sheets-unavailable': "Google's spreadsheet service failed; formqueue tries again by itself every minute (a mail tells staff if it lasts).",
  'config-missing': 'A sheet or setting formqueue needs is missing: run formqueue → Set up / repair (its report names what).',
  'code-bug': 'An unexpected error stopped the run; staff get a mail with the details for whoever set formqueue up.',
};

/** "Generated 2, sent 1, …" and, when the run did not finish, one sentence on why and what next. */
export function runOutcomeText(summary: ProcessingSummary): string {
  const counts =
    `Generated ${summary.generated}, sent ${summary.sent}, failed ${summary.failed}, waiting ${summary.deferred}, ` +
    `needs review ${summary.needsReview}, duplicates ${summary.duplicates}.`;
  const why = STOPPED_BECAUSE[summary.stoppedBecause];
  return why === '' ? counts : `${counts} ${why}`;
}
