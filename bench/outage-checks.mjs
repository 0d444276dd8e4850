// What `npm run typeform-outage` must show (issue #25, "Done when"), and its section of docs/reliability.md.
import { table } from './report.mjs';

const SECTION_HEADING = "## Typeform's sender: a webhook disabled and mended";
/** The watch runs every 15 minutes: a disabled webhook is mailed about within one period. */
const DETECT_WITHIN_MINUTES = 15;

/**
 * The checks of one run's figures (bench/typeform-outage.mjs), each {ok, says}.
 * @param {Record<string, any>} f
 */
export function outageChecks(f) {
  const detections = f.detectionMinutes;
  return [
    { ok: f.answeredExactlyOnce === f.submissions && f.duplicateReplies === 0 && f.lost === 0,
      says: `every response answered exactly once: ${f.answeredExactlyOnce}/${f.submissions} (duplicate replies ${f.duplicateReplies}, lost ${f.lost})` },
    { ok: f.rowsInQueue === f.submissions, says: `one Queue row per response: ${f.rowsInQueue} rows for ${f.submissions}` },
    { ok: f.disabledAtHour.some((hour) => hour >= f.outageHours[0] && hour <= f.outageHours[1]),
      says: `the 404 hour (${f.outageHours.join('–')} h) disabled the webhook: disabled at ${JSON.stringify(f.disabledAtHour)} h` },
    { ok: detections.length === f.webhookDisabled && detections.every((m) => m !== null && m <= DETECT_WITHIN_MINUTES),
      says: `each disable mailed within ${DETECT_WITHIN_MINUTES} modeled minutes: ${JSON.stringify(detections)}` },
    { ok: f.incidentFirstMails === f.webhookDisabled && f.incidentRecoveryMails === f.webhookDisabled,
      says: `one incident mail and one recovery mail per disable: ${f.incidentFirstMails} and ${f.incidentRecoveryMails} for ${f.webhookDisabled}` },
    { ok: f.reenabled === f.webhookDisabled && f.webhookEnabledAtEnd === true,
      says: `switched back on by the watch after each disable (TYPEFORM_WEBHOOK_REENABLE): ${f.reenabled} time(s), enabled at the end: ${f.webhookEnabledAtEnd}` },
    { ok: f.junkQueued === 0, says: `the outsider flood queued nothing: ${f.junkQueued} of ${f.junkPosts} junk posts queued` },
  ];
}

/**
 * The section docs/reliability.md gets from a run with --mode both.
 * @param {{ command: string, commit: string, results: { figures: Record<string, any>, checks: { ok: boolean, says: string }[] }[], machine: string[] }} run
 */
export function outageSection({ command, commit, results, machine }) {
  const col = (pick) => results.map(({ figures }) => pick(figures));
  const list = (values) => (values.length === 0 ? '–' : values.join(', '));
  const rows = [
    ['modeled days × submissions a day', ...col((f) => `${f.modeledDays} × ${Math.round(f.submissions / f.modeledDays)}`)],
    ['responses / answered exactly once', ...col((f) => `${f.submissions} / ${f.answeredExactlyOnce}`)],
    ['duplicate replies / lost', ...col((f) => `${f.duplicateReplies} / ${f.lost}`)],
    ['Queue rows / recovered from Typeform (`reconciled:`)', ...col((f) => `${f.rowsInQueue} / ${f.recoveredRows}`)],
    ['delivery attempts (delivered / failed)', ...col((f) => `${f.deliveryAttempts} (${f.delivered} / ${f.failedAttempts})`)],
    ['deliveries not sent (webhook off) / given up after the last retry', ...col((f) => `${f.droppedWhileDisabled} / ${f.gaveUp}`)],
    ['404 window (modeled hours)', ...col((f) => f.outageHours.join('–'))],
    ['webhook disabled (modeled hour)', ...col((f) => `${f.webhookDisabled} (${list(f.disabledAtHour)})`)],
    ['modeled minutes from disable to incident mail', ...col((f) => list(f.detectionMinutes))],
    ['incident mails: first / reminder / recovery', ...col((f) => `${f.incidentFirstMails} / ${f.incidentReminders} / ${f.incidentRecoveryMails}`)],
    ['switched back on by the watch (modeled hour)', ...col((f) => `${f.reenabled} (${list(f.reenabledAtHour)})`)],
    ['webhook enabled at the end', ...col((f) => (f.webhookEnabledAtEnd ? 'yes' : 'no'))],
    ['outsider junk posts / queued', ...col((f) => `${f.junkPosts} / ${f.junkQueued}`)],
    ['wall time', ...col((f) => `${f.wallSeconds} s`)],
  ];
  const held = results.every(({ checks }) => checks.every((check) => check.ok));
  return [
    SECTION_HEADING,
    '',
    'Written by `npm run typeform-outage` (bench/typeform-outage.mjs; its checks: bench/outage-checks.mjs). The runtime\'s',
    'Typeform sender (docs/runtime.md#typeform-webhook-sender: Typeform\'s published retry classes and disable rules)',
    'delivers every submission to the web app, in both readings of what it does with the web app\'s 302',
    '(`typeformRedirect=fail`: counted as a failure and retried; `follow`: followed to its 200). formqueue runs as',
    'deployed, in 15-minute modeled steps: the webhook watch and processQueue every step, the daily Typeform check at',
    '06:00, `TYPEFORM_WEBHOOK_REENABLE=true`. In the middle of the run the web app\'s deployment is removed for one hour',
    '(every delivery answered 404, which disables the webhook at once); at a third of the run an outsider posts junk',
    'without the token. The run exits 1 if any check below fails.',
    '',
    `Command: \`${command}\`, on commit ${commit}.`,
    ...machine,
    '',
    table(['figure', ...results.map(({ figures }) => `typeformRedirect=${figures.mode}`)], rows),
    '',
    `Checks (${held ? 'all held' : 'NOT all held'}):`,
    '',
    ...results.flatMap(({ figures, checks }) => checks.map((check) => `- ${figures.mode}: ${check.ok ? 'held' : 'FAILED'} — ${check.says}`)),
    '',
    'A disable outside the 404 window is Typeform\'s own rule ("fails 100 % of the time over 24 hours with more than 300',
    'attempts"): in `fail` every 302 is a failed attempt and each delivery is tried 6 times, so at 100 a day the rule is',
    'met about every 13 hours; each such disable is mailed, switched back on at once and its incident cleared at the',
    'next look. Minutes to detect are counted from the disabling attempt\'s due time to the incident mail, in the',
    'runs\' 15-minute steps (the watch runs right after the sender\'s attempts of a step), so they say "within the step".',
    'A reminder ("Still: …") comes when the incident outlasts `TRIAGE_REMINDER_MINUTES` (60): the watch cannot switch the',
    'webhook back on while the web app answers 404, and the look after the switch clears the incident.',
    'The chaos actors `typeformSubmit`, `typeformOutage` and `typeformWatch` (bench/chaos-typeform.mjs) put the same sender,',
    '404 windows and watch inside random schedules.',
  ].join('\n');
}

/** The document with its Typeform sender section replaced by `section` (appended at the end when it has none). */
export function replaceSection(doc, section) {
  const start = doc.indexOf(SECTION_HEADING);
  if (start === -1) return `${doc.trimEnd()}\n\n${section}\n`;
  const next = doc.indexOf('\n## ', start + SECTION_HEADING.length);
  return `${doc.slice(0, start)}${section}\n${next === -1 ? '' : doc.slice(next)}`;
}

/** The Typeform sender section of a document, or '' (chaos.mjs keeps it when it rewrites docs/reliability.md). */
export function sectionOf(doc) {
  const start = doc.indexOf(SECTION_HEADING);
  if (start === -1) return '';
  const next = doc.indexOf('\n## ', start + SECTION_HEADING.length);
  return doc.slice(start, next === -1 ? undefined : next).trimEnd();
}
