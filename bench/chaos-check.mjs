// The chaos invariants over one drained schedule: no mail twice, no accepted event lost or stuck, no secret anywhere.
import { LOCAL_TYPEFORM_TOKEN } from '../emulator/offline-typeform.mjs';
import { GEMINI_KEY, TOKEN, eventIdOf, recipientOf } from '../harness/runtime.mjs';
import { INJECTION_MARKER, ceilingBreaches, mailsOutsideWindow } from './chaos-safety.mjs';
import { BURST_EVENTS, EVENT_POOL } from './chaos-schedule.mjs';

/**
 * Where a submission may end: answered once (SENT), or where a person sees it and knows what to do (FAILED,
 * NEEDS_REVIEW, SKIPPED by staff; each with its reason in `error`). Only Queue and Archive count: a submission whose row
 * staff deleted, pasted over or left behind in a renamed sheet, and that nothing put back in Queue, is lost (a row put
 * back as NEEDS_REVIEW with its reason is with a person). AWAITING_APPROVAL is with a person too, but the drain approves it.
 */
const FINAL = new Set(['SENT', 'FAILED', 'NEEDS_REVIEW', 'SKIPPED', 'TEST', 'DUPLICATE']);
const NEEDS_REASON = new Set(['FAILED', 'NEEDS_REVIEW', 'SKIPPED', 'DUPLICATE']);
/** Rows that wait for (or were decided by) a person: never mailed by the system alone. */
const PERSON_STATES = new Set(['NEEDS_REVIEW', 'FAILED', 'AWAITING_APPROVAL', 'SKIPPED']);
const SECRETS = { GEMINI_API_KEY: GEMINI_KEY, WEBHOOK_TOKEN: TOKEN, TYPEFORM_TOKEN: LOCAL_TYPEFORM_TOKEN };
/** A delivery Google refused over 30 simultaneous executions: 200 with its HTML page, doPost never ran. */
const isRefused = (answer) => answer?.status === 'refused';

function objects(sheet) {
  if (!sheet) return [];
  return sheet.rows.map((cells) => Object.fromEntries(sheet.header.map((name, i) => [name, cells[i]])));
}

/**
 * An event counts as accepted when any delivery of it was answered queued (true or deferred) or duplicate. A delivery
 * for a form Config does not enable is never accepted by itself (a deferred one is judged later, by the same rules):
 * its rule is unknownFormViolations'.
 */
export function acceptedEvents(answers) {
  const accepted = new Set();
  for (const { n, answer, unknownForm } of answers) {
    if (unknownForm) continue;
    if (answer?.ok === true && (answer.queued === true || answer.queued === 'deferred' || answer.duplicate === true)) accepted.add(n);
  }
  return accepted;
}

/**
 * Deliveries with the right token for a form Config does not enable: not lost when refused, but refused where a person
 * sees it. Each one a script ran for must be in Rejected (where staff read the reason and can accept it) or have a
 * row (queued from there, or by a product that queues such deliveries for a person). One Google refused (over 30
 * simultaneous executions) never reached a script: Typeform keeps it, and the Typeform check asks only about the
 * forms Config enables.
 */
function unknownFormViolations(answers, rows, rejectedText) {
  const seen = new Map();
  for (const { n, id, answer, unknownForm } of answers) if (unknownForm && !isRefused(answer)) seen.set(n, { id, answer });
  const violations = [];
  for (const [n, { id, answer }] of seen) {
    if (rejectedText.includes(id) || rows.some((r) => r.event_id === id)) continue;
    violations.push(`a delivery for a form Config does not enable (#${n}, ${id}) is neither in Rejected nor queued: refused where nobody sees it (answered ${JSON.stringify(answer)})`);
  }
  return violations;
}

/** Deliveries the platform itself refused (more than 30 simultaneous executions: Google's HTML 200, no script ran). */
export function refusedByPlatform(answers) {
  return answers.filter(({ answer }) => isRefused(answer)).length;
}

/** The response token of submission n (harness/runtime.mjs): a row recovered from Typeform has it, with a reconciled: event id. */
const tokenOf = (n) => `tok${String(n).padStart(29, '0')}`;

/** Rows of no known event (by event id, or by response token for a row the Typeform check recovered); blank rows aside. */
function rowsOfNoEvent(rows, knownIds, knownTokens) {
  return rows
    .filter((r) => !Object.values(r).every((v) => v === '' || v === null || v === undefined))
    .filter((r) => !knownIds.has(String(r.event_id)) && !knownTokens.has(String(r.response_token)))
    .map((r) => `a row of an event no delivery sent: ${String(r.event_id).slice(0, 60)} (${r.status})`);
}

/**
 * One event's rows and mails. Accepted by doPost, queued later (Accept rejected delivery, the Typeform check) or
 * refused by the platform with no bad-token copy in Rejected (`mustHaveRow`): it must end answered or with a person.
 */
/**
 * Issue #28: a reply an injection steered (it carries the injected domain) goes only after a person decided on the
 * row (staff set its status: approved it, or pasted a status over it); the reply policy holds it AWAITING_APPROVAL until then.
 */
function steeredWithoutPerson(n, sent, decidedByPerson) {
  if (decidedByPerson) return [];
  return sent
    .filter((m) => `${m.subject}\n${m.body}\n${m.htmlBody ?? ''}`.includes(INJECTION_MARKER))
    .map((m) => `event #${n} was mailed a reply steered by an injection (${INJECTION_MARKER}) that no person approved: ${m.executionId}: ${m.subject}`);
}

function checkEvent({ n, id, mine, sentElsewhere = [], sent, mustHaveRow, accepted, journaled }) {
  const violations = [];
  // A staff copy of a SENT row (a whole row pasted over another) is the same record twice, not a second answer: the
  // copy carries the original's mail_ref and sent_at, and a filled sent_at is never mailed again.
  const live = distinctRecords(mine.filter((r) => r.status !== 'DUPLICATE'));
  const lost = (why) => ({ lost: true, violations: [why] });
  if (mustHaveRow || mine.length > 0) {
    // Answered once, its row tidied away by staff (deleted, pasted over, left in a renamed sheet): nothing is missing
    // while the Journal, which staff edits cannot reach, still holds the submission.
    // The same when a DUPLICATE copy is all that is left (a burst appended the submission twice, the answering row was
    // mailed and then deleted): the copy names a row that is gone, but the reply went once and the Journal holds it.
    if (live.length === 0 && sent.length === 1 && journaled) return { lost: false, violations };
    if (mine.length === 0) return lost(accepted ? `event #${n} (${id.slice(0, 60)}) was accepted but has no row` : `event #${n} is stored by Typeform (refused by the platform, or sent by Typeform's sender) and no Typeform check recovered it`);
    if (live.length === 0) return lost(`event #${n} has only DUPLICATE rows`);
    const stuck = mine.filter((r) => !FINAL.has(String(r.status)));
    if (stuck.length > 0) return lost(`event #${n} is stuck: ${stuck.map((r) => `${r.status} (${r.error || 'no error'})`).join(', ')}`);
  }
  // Several rows of one submission are one answer too many, unless all but one wait for a person with a reason (a staff
  // copy the product cannot collapse: a person keeps one, and the send ledger mails whichever once).
  const answering = live.filter((r) => !(PERSON_STATES.has(String(r.status)) && String(r.error ?? '').trim() !== ''));
  if (live.length > 1 && answering.length > 1) violations.push(`event #${n} has ${live.length} rows that are not DUPLICATE: ${live.map((r) => r.status).join(', ')}`);
  for (const r of mine) {
    if (NEEDS_REASON.has(String(r.status)) && String(r.error ?? '').trim() === '') violations.push(`event #${n}: ${r.status} row without a reason`);
    if (r.status === 'SENT' && (!r.sent_at || !r.mail_ref)) violations.push(`event #${n}: SENT row without sent_at or mail_ref`);
    if (r.status === 'SENT' && sent.length === 0) violations.push(`event #${n}: row says SENT but no mail went to ${recipientOf(n)}`);
  }
  for (const m of sent) {
    const carries = (r) => r.mail_ref && String(m.subject).includes(r.mail_ref) && String(m.body).includes(r.mail_ref);
    // Its row left in a renamed Queue (SENT, or SENDING after a crash) accounts for it while Queue holds the
    // submission with a person (the send ledger refused to mail it again).
    if (!live.some(carries) && sentElsewhere.some(carries) && live.some((r) => PERSON_STATES.has(String(r.status)) || r.status === 'SENT')) continue;
    const owner = live.find(carries);
    if (!owner) violations.push(`a mail to ${m.to} carries no mail_ref of event #${n}'s rows: ${m.subject}`);
    else if (owner.status !== 'SENT' && owner.status !== 'NEEDS_REVIEW') violations.push(`event #${n} was mailed but its row says ${owner.status}`);
  }
  return { lost: false, violations };
}

/** SENT rows that are copies of one another (same mail_ref and sent_at) count once; every other row counts. */
function distinctRecords(rows) {
  const seen = new Set();
  return rows.filter((r) => {
    if (r.status !== 'SENT' || !r.mail_ref) return true;
    const key = `${r.mail_ref}|${r.sent_at}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every place a secret appears: sheets, execution logs (and doPost answers), mails. */
function secretsIn(observed) {
  const leaks = [];
  const places = [
    ...Object.entries(observed.sheets).map(([name, sheet]) => [`sheet ${name}`, JSON.stringify(sheet)]),
    ...observed.executions.map((e) => [`log of ${e.id} (${e.fn})`, JSON.stringify([e.logs, e.error, e.fn === 'doPost' ? e.value : null])]),
    ...observed.outbox.map((m) => [`mail to ${m.to} (${m.subject})`, JSON.stringify([m.subject, m.body, m.htmlBody])]),
  ];
  for (const [where, text] of places) {
    for (const [name, secret] of Object.entries(SECRETS)) if (text.includes(secret)) leaks.push(`${name} appears in ${where}`);
  }
  return leaks;
}

export function checkSchedule(observed) {
  const violations = [];
  const rows = [...objects(observed.sheets.Queue), ...objects(observed.sheets.Archive)];
  // Queues staff renamed (the staffRenameQueue actor) still hold the rows of the mails that went from them (SENT, or
  // SENDING when the run died right after the send): they own those mails, though only Queue and Archive count for
  // whether a submission is kept.
  const renamed = Object.entries(observed.sheets).filter(([name]) => /^Queue \(old \d+\)$/.test(name)).flatMap(([, sheet]) => objects(sheet));
  const accepted = acceptedEvents(observed.answers);
  // Typeform holds every refused submission, so the Typeform check must have queued it (or it is in Rejected, from a
  // bad-token copy, where staff accept it): only then is it not lost. A poison delivery is an outsider's post to the
  // web app, never a response to the form: Typeform's Responses API ("retrieve responses submitted to a typeform",
  // https://developer.typeform.com/responses/reference/retrieve-responses/) has nothing to recover when it is refused.
  // Payloads holds a long Rejected body in parts under a `rejected-…` key (src/core/intake/cell-chunks.ts); its other
  // rows are Queue payloads, keyed by event id, which are not in Rejected.
  const rejectedParts = (observed.sheets.Payloads?.rows ?? []).filter((cells) => /^rejected-\d+-[0-9a-f]{8}$/.test(String(cells[0] ?? '')));
  const rejectedText = JSON.stringify(observed.sheets.Rejected?.rows ?? []) + JSON.stringify(rejectedParts);
  // The Journal's submission column (`tf:<form>:<token>`): what formqueue accepted, which staff edits cannot erase.
  const journaledTokens = new Set((observed.sheets.Journal?.rows ?? []).map((cells) => String(cells[1] ?? '').split(':').pop()));
  // A delivery for a form Config does not enable is no submission formqueue takes: the Typeform check asks only about the
  // forms Config enables, so one the platform refused is nowhere to recover from (unknownFormViolations).
  const refusedFromTypeform = (n) => observed.answers.some((a) => a.n === n && a.poison === undefined && !a.unknownForm && isRefused(a.answer));
  // A response Typeform's sender was given (bench/chaos-typeform.mjs) is stored by Typeform, delivered or not (a 302
  // counted as a failure, a 404 that disabled the webhook, retries given up): the watch's recovery or the daily check
  // must have queued it, whatever the webhook did.
  const storedByTypeform = (n) => observed.answers.some((a) => a.n === n && a.storedByTypeform === true);
  const mustHaveRow = (n) => accepted.has(n) || ((refusedFromTypeform(n) || storedByTypeform(n)) && !rejectedText.includes(tokenOf(n)));
  const mails = observed.outbox.filter((m) => m.to !== 'staff@example.com' && !String(m.to).includes('staff@'));

  // Mails per event (each event has its own respondent address).
  let duplicateEmails = 0;
  const mailsOf = new Map();
  for (const m of mails) mailsOf.set(m.to, [...(mailsOf.get(m.to) ?? []), m]);
  for (const [to, list] of mailsOf) {
    if (list.length > 1) {
      duplicateEmails += list.length - 1;
      violations.push(`${to} was mailed ${list.length} times (${list.map((m) => `${m.executionId}: ${m.subject}`).join(' | ')})`);
    }
  }

  // Issue #28: no reply mailed outside the form's send window in effect (chaos-safety.mjs mailsOutsideWindow).
  violations.push(...mailsOutsideWindow(mails, observed.windows));
  // Issue #28: never more new recipients than the ceiling allows in a rolling hour or day.
  violations.push(...ceilingBreaches(mails, observed.ceiling));
  const staffTouched = new Set(observed.staffTouched ?? []);

  let lost = 0;
  // The pool's submissions, the opening burst's and every hostile one (its event id as delivered), each with its own respondent.
  const events = new Map();
  for (let n = 1; n <= EVENT_POOL; n++) events.set(n, eventIdOf(n));
  for (const n of BURST_EVENTS) events.set(n, eventIdOf(n));
  for (const { n, id } of observed.answers) if (id !== undefined) events.set(n, id);
  for (const [n, id] of events) {
    const mine = rows.filter((r) => r.event_id === id || r.response_token === tokenOf(n));
    const sentElsewhere = renamed.filter((r) => (r.event_id === id || r.response_token === tokenOf(n)) && (r.status === 'SENT' || r.status === 'SENDING'));
    const decidedByPerson = staffTouched.has(id) || staffTouched.has(tokenOf(n)) || mine.some((r) => staffTouched.has(String(r.event_id)));
    const sent = mailsOf.get(recipientOf(n)) ?? [];
    const found = checkEvent({ n, id, mine, sentElsewhere, sent, mustHaveRow: mustHaveRow(n), accepted: accepted.has(n), journaled: journaledTokens.has(tokenOf(n)) });
    violations.push(...steeredWithoutPerson(n, sent, decidedByPerson));
    if (found.lost) lost++;
    violations.push(...found.violations);
  }
  violations.push(...rowsOfNoEvent(rows, new Set(events.values()), new Set([...events.keys()].map(tokenOf))));
  violations.push(...unknownFormViolations(observed.answers, rows, rejectedText));
  if (lost > 0 && observed.drainLog) violations.push(`drain runs: ${observed.drainLog.join(' / ')}`);
  const failed = (observed.executions ?? []).filter((e) => e.status !== 'ok' && e.fn !== 'benchNoSuchFunction');
  if (violations.length > 0 && failed.length > 0) violations.push(`executions that did not end ok: ${failed.map((e) => `${e.id} ${e.fn} ${e.status}: ${e.error?.message ?? ''}`).join(' / ')}`);
  if (observed.spill.length > 0) violations.push(`${observed.spill.length} deliveries are still spilled in Script Properties`);

  const leaks = secretsIn(observed);
  violations.push(...leaks);
  return { accepted: accepted.size, refusedByPlatform: refusedByPlatform(observed.answers), duplicateEmails, lost, secretsLeaked: leaks.length, violations };
}
