// Each account and spreadsheet check in full (and the evidence cut they share): the verdict, the evidence the operator reads and the advice for every branch, exactly.
import { describe, expect, it } from 'vitest';
import { judgeIdentity, judgeMailQuota, judgePlainText, judgeTextFinder, judgeTriggers, PLAIN_TEXT_SAMPLES, textFinderCells } from '../../../src/core/self-test/checks';
import type { CheckResult } from '../../../src/core/self-test/check-result';

const ok = <T>(value: T) => ({ ok: true as const, value });
const err = (error: string) => ({ ok: false as const, error });
const ME = 'owner@example.com';
const identityPass = judgeIdentity({ activeUser: ME, webApp: ok(ME) });
const identityUnknown = judgeIdentity({ activeUser: '', webApp: ok(ME) });
const identityFail = judgeIdentity({ activeUser: 'staff@example.com', webApp: ok(ME) });

describe('evidence text is one redacted line of at most 300 characters', () => {
  const words295 = 'abcd '.repeat(59);
  it.each([
    ['whitespace runs and line breaks collapse, the ends are trimmed', '  Exception:\n  Service   Spreadsheets\tfailed  ', 'Exception: Service Spreadsheets failed'],
    ['300 characters stay whole', `${words295}abcde`, `${words295}abcde`],
    ['301 characters are cut to 299 and an ellipsis', `${words295}abcdef`, `${words295}abcd…`],
    ['a key in the error is redacted', 'fetch failed: https://x.example/v1?key=AIzaSyA1234567890abcdefghijklmnop', 'fetch failed: https://x.example/v1?key=[redacted]'],
  ])('%s', (_, error, shown) => {
    expect(judgePlainText(err(error)).evidence).toBe(`the probe itself failed: ${shown}`);
  });
});

describe('plain text on appended rows', () => {
  const title = 'Plain-text format holds on appended rows';
  it('passes when every sample reads back as the same string, listing each with its format', () => {
    expect(judgePlainText(ok({ read: PLAIN_TEXT_SAMPLES.slice(), formats: PLAIN_TEXT_SAMPLES.map(() => '@') }))).toEqual({
      id: 'plain-text', title, verdict: 'pass',
      evidence: '"007" → "007" ("@"), "+4915112345678" → "+4915112345678" ("@"), "2026-01-02" → "2026-01-02" ("@"), "TRUE" → "TRUE" ("@"), "=1+1" → "=1+1" ("@"), "1e5" → "1e5" ("@")',
    });
  });

  it('fails when Sheets converted values, describing a number, a date and a boolean, and a missing format as ""', () => {
    const read = [7, '+4915112345678', new Date('2026-01-02T00:00:00Z'), true, 2, '1e5'];
    expect(judgePlainText(ok({ read, formats: ['0', '@'] }))).toEqual({
      id: 'plain-text', title, verdict: 'fail',
      evidence: '"007" → number 7 ("0"), "+4915112345678" → "+4915112345678" ("@"), "2026-01-02" → a date (2026-01-02T00:00:00.000Z) (""), '
        + '"TRUE" → boolean true (""), "=1+1" → number 2 (""), "1e5" → "1e5" ("")',
      advice: 'Sheets converted text that formqueue writes with the "@" (plain text) format first. Answers such as phone numbers, '
        + 'dates or "=…" would be stored changed. Report this with the evidence; until then, read answers in the payload column.',
    });
  });

  it.each([
    ['one changed string', PLAIN_TEXT_SAMPLES.map((v) => (v === '1e5' ? '100000' : v))],
    ['one cell read back empty', PLAIN_TEXT_SAMPLES.map((v, i) => (i === 0 ? '' : v))],
  ])('fails on %s alone', (_, read) => {
    expect(judgePlainText(ok({ read, formats: [] })).verdict).toBe('fail');
  });

  it('a probe that threw is unknown, with the error as evidence', () => {
    expect(judgePlainText(err('Service Spreadsheets failed'))).toEqual({
      id: 'plain-text', title, verdict: 'unknown', evidence: 'the probe itself failed: Service Spreadsheets failed',
      advice: 'Run the self-test again; if it keeps failing, Sheets refused the scratch sheet (see the error).',
    });
  });
});

describe('TextFinder', () => {
  const title = 'TextFinder matches whole cells, case-sensitively';
  const over = 'findAll("Ab1") with matchEntireCell(true).matchCase(true) over ["ab1","Ab1-more","Ab1","xAb1"]';
  const advice = 'Duplicate detection looks an event_id up with this TextFinder: a wrong match could call a new submission a duplicate, '
    + 'a missed one could queue a redelivery twice (the reply would still be sent only once per row). Report it with the evidence.';

  it('the scratch column holds the needle once among cells that differ only in case, by a suffix or a prefix', () => {
    expect(textFinderCells('Ab1')).toEqual(['ab1', 'Ab1-more', 'Ab1', 'xAb1']);
  });

  it.each<[number[], CheckResult]>([
    [[3], { id: 'text-finder', title, verdict: 'pass', evidence: `${over} returned row(s) 3; expected only row 3` }],
    [[], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) none; expected only row 3`, advice }],
    [[1, 3], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) 1, 3; expected only row 3`, advice }],
    [[2], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) 2; expected only row 3`, advice }],
    [[3, 3], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) 3, 3; expected only row 3`, advice }],
  ])('rows %j for a needle in row 3', (matchedRows, expected) => {
    expect(judgeTextFinder(ok({ needle: 'Ab1', matchedRows, expectedRow: 3 }))).toEqual(expected);
  });

  it('a probe that threw is unknown', () => {
    expect(judgeTextFinder(err('boom'))).toEqual({
      id: 'text-finder', title, verdict: 'unknown', evidence: 'the probe itself failed: boom', advice: 'Run the self-test again; the scratch sheet could not be searched.',
    });
  });
});

describe('who runs it vs who the web app runs as', () => {
  const title = 'You (running this) and the account the web app runs as';
  const hidden = 'Google hides one of the two addresses (for example a consumer account running a script it does not own). '
    + 'Make sure the account that ran `npm run deploy` also runs Set up / repair.';
  it.each<[string, string, ReturnType<typeof ok<string>> | ReturnType<typeof err>, CheckResult]>([
    ['the same account', ME, ok(ME), { id: 'identity', title, verdict: 'pass', evidence: 'you: owner@example.com; the web app runs as: owner@example.com (the same account)' }],
    ['the same account in other letter case', 'Owner@Example.com', ok(ME),
      { id: 'identity', title, verdict: 'pass', evidence: 'you: Owner@Example.com; the web app runs as: owner@example.com (the same account)' }],
    ['Google hides the active user', '', ok(ME), { id: 'identity', title, verdict: 'unknown', evidence: 'you: (not revealed by Google); the web app runs as: owner@example.com', advice: hidden }],
    ['Google hides the deployer', ME, ok(''), { id: 'identity', title, verdict: 'unknown', evidence: 'you: owner@example.com; the web app runs as: (not revealed)', advice: hidden }],
    ['another person', 'staff@example.com', ok(ME), {
      id: 'identity', title, verdict: 'fail', evidence: 'you: staff@example.com; the web app runs as: owner@example.com',
      advice: 'You are not the deploying account. Triggers you create run as you, not as owner@example.com: their mail counts against your quota, '
        + 'and intake\'s user lock does not serialise your triggers with the web app. Let the deploying account run Set up / repair (and this self-test), '
        + 'and delete triggers you created (Apps Script editor → Triggers).',
    }],
    ['the web app cannot be asked', ME, err('HTTP 404\n  Not Found'), {
      id: 'identity', title, verdict: 'unknown', evidence: 'you: owner@example.com; the web app could not be asked: HTTP 404 Not Found',
      advice: 'See the web-app check below: until the web app answers, formqueue cannot tell who it runs as.',
    }],
  ])('%s', (_, activeUser, webApp, expected) => {
    expect(judgeIdentity({ activeUser, webApp })).toEqual(expected);
  });

  it('names an unrevealed runner in the evidence even when the web app cannot be asked', () => {
    expect(judgeIdentity({ activeUser: '', webApp: err('timeout') }).evidence).toBe('you: (not revealed by Google); the web app could not be asked: timeout');
  });
});

describe('triggers', () => {
  const title = 'The triggers exist for the deploying account';
  const pq = { handler: 'processQueue', type: 'CLOCK' };
  const edit = { handler: 'onEditInstallable', type: 'ON_EDIT' };
  const repair = 'Run formqueue → Set up / repair as the deploying account: it creates exactly one of each and removes duplicates. Without processQueue nothing is answered.';
  const listed = 'your triggers on this project:';
  it.each<[string, { handler: string; type: string }[], CheckResult, CheckResult]>([
    ['both, as the deployer', [pq, edit], identityPass, { id: 'triggers', title, verdict: 'pass', evidence: `${listed} processQueue (CLOCK), onEditInstallable (ON_EDIT)` }],
    ['both, deployer unknown', [pq, edit], identityUnknown, {
      id: 'triggers', title, verdict: 'unknown', evidence: `${listed} processQueue (CLOCK), onEditInstallable (ON_EDIT)`,
      advice: 'They are yours; whether you are the deploying account is unknown (see above).',
    }],
    ['none, run by someone else', [], identityFail, {
      id: 'triggers', title, verdict: 'unknown', evidence: `${listed} none`,
      advice: 'Apps Script lists only the triggers of the account running the self-test, and that is not the deploying account (see above): run the self-test as the deploying account.',
    }],
    ['none', [], identityPass, { id: 'triggers', title, verdict: 'fail', evidence: `${listed} none (missing: processQueue, onEditInstallable)`, advice: repair }],
    ['processQueue twice', [pq, pq, edit], identityPass, {
      id: 'triggers', title, verdict: 'fail', evidence: `${listed} processQueue (CLOCK), processQueue (CLOCK), onEditInstallable (ON_EDIT) (duplicated: processQueue)`, advice: repair,
    }],
    ['both twice', [pq, edit, pq, edit], identityPass, {
      id: 'triggers', title, verdict: 'fail',
      evidence: `${listed} processQueue (CLOCK), onEditInstallable (ON_EDIT), processQueue (CLOCK), onEditInstallable (ON_EDIT) (duplicated: processQueue, onEditInstallable)`, advice: repair,
    }],
    ['each handler on the other\'s trigger type', [{ handler: 'processQueue', type: 'ON_EDIT' }, { handler: 'onEditInstallable', type: 'CLOCK' }], identityPass, {
      id: 'triggers', title, verdict: 'fail', evidence: `${listed} processQueue (ON_EDIT), onEditInstallable (CLOCK) (missing: processQueue, onEditInstallable)`, advice: repair,
    }],
    ['one missing and one twice, deployer unknown', [pq, pq], identityUnknown, {
      id: 'triggers', title, verdict: 'fail', evidence: `${listed} processQueue (CLOCK), processQueue (CLOCK) (missing: onEditInstallable; duplicated: processQueue)`, advice: repair,
    }],
  ])('%s', (_, triggers, identity, expected) => {
    expect(judgeTriggers(ok(triggers), identity)).toEqual(expected);
  });

  it('a probe that threw is unknown', () => {
    expect(judgeTriggers(err('no'), identityPass)).toEqual({
      id: 'triggers', title, verdict: 'unknown', evidence: 'the probe itself failed: no', advice: 'Run Set up / repair, then the self-test again.',
    });
  });
});

describe('mail quota', () => {
  const title = 'The mail quota can be read';
  it.each<[string, ReturnType<typeof ok<number>> | ReturnType<typeof err>, CheckResult]>([
    ['1 left passes', ok(1), { id: 'mail-quota', title, verdict: 'pass', evidence: 'MailApp.getRemainingDailyQuota() = 1 recipients left today' }],
    ['0 left fails', ok(0), {
      id: 'mail-quota', title, verdict: 'fail', evidence: 'MailApp.getRemainingDailyQuota() = 0',
      advice: 'No mail can be sent until the quota resets (24 hours after the first send of the day). Replies wait as READY and go out after that, once each.',
    }],
    ['an error fails', err('You do not have permission'), {
      id: 'mail-quota', title, verdict: 'fail', evidence: 'MailApp.getRemainingDailyQuota() threw: You do not have permission',
      advice: 'Without it formqueue cannot check the quota before a send. Run Set up / repair to grant the mail scope, then try again.',
    }],
  ])('%s', (_, probe, expected) => {
    expect(judgeMailQuota(probe)).toEqual(expected);
  });
});
