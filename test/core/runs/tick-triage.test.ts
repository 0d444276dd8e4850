// The tick's mail to staff (tick-triage.ts) as a tick sends it: triage mails, the mail quota, a failed send, the daily summary and its figures.
import { describe, expect, it } from 'vitest';
import { REJECTED_TOTALS_PROPERTY } from '../../../src/core/domain/typeform/rejection-tally';
import { HOUR_MS, MINUTE_MS } from '../../../src/core/domain/time';
import { handleDelivery } from '../../../src/core/intake/intake';
import { MemorySuppression, pendingRow, T0 } from '../memory-ports';
import { intakeAndTick, retiringWorld, SETTINGS, tick, tickWorld } from './tick-world';

describe('the processQueue tick', () => {
  it('a junk flood with nothing waiting is never called "no user impact": the mail says a respondent may be affected and what to check', () => {
    for (const [typeformToken, check] of [
      ['', 'with Script Property TYPEFORM_TOKEN set, a daily Typeform check would find them'],
      ['tfp_local-typeform-token-0123456789', 'formqueue → Check Typeform for missed submissions runs it now'],
    ]) {
      const { intake, w, mails } = intakeAndTick({ ...SETTINGS, TYPEFORM_TOKEN: typeformToken });
      for (let n = 0; n < 10; n++) handleDelivery({ token: 'no-token', body: '{"junk":true}' }, intake.deps);
      tick(w);
      const [mail] = mails();
      expect(mail.subject).toBe('[formqueue] Deliveries rejected — 0 waiting, a respondent may be affected');
      expect(mail.body).not.toContain('no user impact');
      expect(mail.body).toContain('Respondents affected: Possibly. A respondent may be affected even so: past 30 simultaneous executions Google refuses the rest before formqueue runs');
      expect(mail.body).toContain("Check the webhook's delivery log in Typeform (the form → Connect → Webhooks → View deliveries)");
      expect(mail.body).toContain(check);
    }
  });

  it('a triage mail goes out once, and is recorded before the next one', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '' });
    tick(w);
    const staffMails = () => w.mailer.outbox.filter((mail) => mail.to.includes('duty@example.org'));
    expect(staffMails()).toHaveLength(1);
    w.clock.advance(60_000);
    tick(w);
    expect(staffMails()).toHaveLength(1);
  });
});

describe('the tick, rule by rule', () => {
  it('an unknown mail quota: triage mail waits, said in the log, and nothing is mailed to staff', () => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '' });
    w.mailer.remainingDailyQuota = () => {
      throw new Error('Service unavailable: Gmail');
    };
    tick(w);
    expect(w.warnings).toEqual(['mail quota unknown, triage mail waits: Service unavailable: Gmail']);
    expect(w.mailer.outbox).toEqual([]);
  });

  it('a triage mail that fails stays planned, its secret redacted in the log, and goes next run', () => {
    const w = tickWorld({ ...SETTINGS, STAFF_EMAILS: 'duty@example.org', PAUSED: 'true' }, [pendingRow({ status: 'FAILED' })]);
    w.mailer.failWith = () => `boom ${SETTINGS.GEMINI_API_KEY}`;
    tick(w);
    expect(w.warnings).toEqual(['triage mail for ROWS_NEED_A_PERSON not sent, it stays planned: boom [redacted]']);
    w.mailer.failWith = () => undefined;
    w.clock.advance(60_000);
    tick(w);
    expect(w.mailer.outbox.map((mail) => mail.subject)).toEqual(['[formqueue] Rows need a person — 1 row needs a person']);
  });

  it('the daily summary goes once a day when DAILY_SUMMARY is on; a failed one is logged and tried again', () => {
    const w = tickWorld({ ...SETTINGS, DAILY_SUMMARY: 'true', PAUSED: 'true' }, []);
    w.mailer.failWith = (mail) => (/summary/i.test(mail.subject) ? 'quota gone' : undefined);
    tick(w);
    expect(w.warnings).toEqual(['daily summary not sent: quota gone']);
    w.mailer.failWith = () => undefined;
    tick(w);
    tick(w);
    expect(w.mailer.outbox.filter((mail) => /summary/i.test(mail.subject))).toHaveLength(1);
  });

  it('the daily summary shows the rejections folded by this very run', () => {
    const w = tickWorld({ ...SETTINGS, DAILY_SUMMARY: 'true', [REJECTED_TOTALS_PROPERTY]: JSON.stringify({ day: '2026-11-20', count: 2, dropped: 0, bytes: 10, through: '' }) });
    w.tally.append({ day: '2026-11-20', bytes: 0 });
    tick(w);
    const [summary] = w.mailer.outbox.filter((mail) => /summary/i.test(mail.subject));
    expect(summary.body).toContain('3 today so far (1 without their body); see the Rejected sheet');
  });

  it('the daily summary counts the bounces the bounce check tallied (last 24 hours) and the Suppressed sheet, read only for the summary', () => {
    const tally = [[T0 - 30 * HOUR_MS, 9], [T0 - HOUR_MS, 2]];
    const w = tickWorld({ ...SETTINGS, DAILY_SUMMARY: 'true', RECONCILE_BOUNCES: 'true', FQ_BOUNCE_CHECK: JSON.stringify({ at: T0 - MINUTE_MS, seen: [], bounced: tally }) }, []);
    const list = new MemorySuppression([{ address: 'ann@example.org', reason: 'bounced', addedBy: 'bounce', addedAt: T0 }, { address: 'Bo <bo@example.org>', reason: '', addedBy: 'desk', addedAt: null }]);
    const open = w.openWorkspace;
    w.openWorkspace = () => ({ ...open(), suppression: list });
    tick(w);
    const [summary] = w.mailer.outbox.filter((mail) => /summary/i.test(mail.subject));
    expect(summary.body).toContain('Bounces and suppression: 2 bounces in the last 24 hours; 2 addresses on the Suppressed sheet; 0 rows stopped because their address is suppressed');
    expect(list.reads).toBe(1);
    // The next tick sends no summary (one a day), so it does not read the sheet for one.
    tick(w);
    expect(list.reads).toBe(1);
  });

  it.each([
    [23, false],
    [24, true],
  ])('with a mail quota of %d, two staff and one triage mail, the daily summary goes: %s', (quota, goes) => {
    const w = tickWorld({ ...SETTINGS, GEMINI_API_KEY: '', STAFF_EMAILS: 'duty@example.org, lead@example.org', DAILY_SUMMARY: 'true' }, []);
    w.mailer.quota = quota;
    tick(w);
    expect(w.mailer.outbox.map((mail) => /summary/i.test(mail.subject))).toEqual(goes ? [false, true] : [false]);
  });
});

describe("the tick's closing write: what the run spent, found retired and saw of Config", () => {
  it("the daily summary counts this run's own tokens, written in the same tick", () => {
    const w = retiringWorld({ DAILY_SUMMARY: 'true' });
    tick(w);
    const [summary] = w.mailer.outbox.filter((mail) => /summary/i.test(mail.subject));
    expect(summary.body).toContain('Today so far (2026-11-20): form Wr1tE5sy, gemini-3.5-flash: 1 replies (1 calls), tokens prompt 412, output 71, thinking 0; est. $0.0013\n');
  });
});

describe('the daily summary and the Suppressed sheet', () => {
  it('a spreadsheet without a Suppressed sheet counts no suppressed address (not "could not be read")', () => {
    const w = tickWorld({ ...SETTINGS, DAILY_SUMMARY: 'true', PAUSED: 'true' }, []);
    tick(w);
    const [summary] = w.mailer.outbox.filter((mail) => /summary/i.test(mail.subject));
    expect(summary.body).toContain('Bounces and suppression: bounces not checked (RECONCILE_BOUNCES off); 0 addresses on the Suppressed sheet; 0 rows stopped because their address is suppressed\n');
  });
});
