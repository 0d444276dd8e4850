// When processQueue's runs stopped while work waited (src/core/domain/queue/run-gap.ts): the rule, and the one incident the first run
// after the gap raises (RUNS_MISSED), e.g. once the account's daily trigger runtime is back.
import { describe, expect, it } from 'vitest';
import { RUNS_OVERDUE_AFTER_MS, missedRunsDetail, overdueReason, runGap, spanText } from '../../../../src/core/domain/queue/run-gap';
import { DIRTY_PROPERTY, LAST_SWEEP_PROPERTY, SPILL_KEY_PREFIX } from '../../../../src/core/domain/queue/tick-gate';
import { HOUR_MS, MINUTE_MS } from '../../../../src/core/domain/time';
import { T0 } from '../../memory-ports';
import { incident, SETTINGS, tick, tickWorld } from '../../runs/tick-world';

const iso = (ms: number) => new Date(ms).toISOString();

describe('runGap: runs are overdue once no full run came for over an hour while work waits', () => {
  const last = String(T0 - 2 * HOUR_MS);
  it.each<[string, Record<string, string>, number, { lastRunAt: number; minutes: number } | null]>([
    ['a delivery waits, the last run two hours ago', { [LAST_SWEEP_PROPERTY]: last, [DIRTY_PROPERTY]: String(T0 - HOUR_MS) }, T0, { lastRunAt: T0 - 2 * HOUR_MS, minutes: 120 }],
    ['deliveries wait in the spill', { [LAST_SWEEP_PROPERTY]: last, [`${SPILL_KEY_PREFIX}1`]: 'x' }, T0, { lastRunAt: T0 - 2 * HOUR_MS, minutes: 120 }],
    ['nothing waits (an idle queue runs only the safety sweep; no harm done)', { [LAST_SWEEP_PROPERTY]: last }, T0, null],
    ['exactly an hour: not yet', { [LAST_SWEEP_PROPERTY]: String(T0 - RUNS_OVERDUE_AFTER_MS), [DIRTY_PROPERTY]: '1' }, T0, null],
    ['a minute past the hour', { [LAST_SWEEP_PROPERTY]: String(T0 - RUNS_OVERDUE_AFTER_MS - MINUTE_MS), [DIRTY_PROPERTY]: '1' }, T0, { lastRunAt: T0 - 61 * MINUTE_MS, minutes: 61 }],
    ['no full run was ever recorded', { [DIRTY_PROPERTY]: '1' }, T0, null],
    ['the record is empty', { [LAST_SWEEP_PROPERTY]: '', [DIRTY_PROPERTY]: '1' }, T0, null],
    ['the record is not a number', { [LAST_SWEEP_PROPERTY]: 'soon', [DIRTY_PROPERTY]: '1' }, T0, null],
  ])('%s', (_name, props, now, expected) => {
    expect(runGap(props, now)).toEqual(expected);
  });

  it('says the span in hours and minutes, and the likely cause with Google\'s error text', () => {
    expect([spanText(45), spanText(60), spanText(1441)]).toEqual(['45 min', '1 h 0 min', '24 h 1 min']);
    const gap = { lastRunAt: T0 - 3 * HOUR_MS, minutes: 180 };
    expect(overdueReason(gap, iso)).toBe(
      `no processQueue run for 3 h 0 min (last ${iso(T0 - 3 * HOUR_MS)}) while deliveries wait. Apps Script ran no processQueue trigger: most often the ` +
        'account\'s daily trigger runtime is used up ("Service using too much computer time for one day"; 90 min a day on a consumer account, 6 h on ' +
        'Workspace), otherwise the trigger was removed or disabled, or Google failed. Deliveries are still recorded; replies wait until runs are possible again',
    );
    expect(missedRunsDetail(gap, T0, iso)).toBe(
      `processQueue did not run from ${iso(T0 - 3 * HOUR_MS)} to ${iso(T0)} (3 h 0 min) while deliveries waited. Apps Script ran no processQueue trigger: ` +
        'most often the account\'s daily trigger runtime is used up ("Service using too much computer time for one day"; 90 min a day on a consumer account, ' +
        '6 h on Workspace), otherwise the trigger was removed or disabled, or Google failed. doPost kept recording deliveries meanwhile; this run works through them',
    );
  });
});

describe('the first run after the gap tells staff once (RUNS_MISSED)', () => {
  function setUp(props: Record<string, string>, mailQuota = 100) {
    const w = tickWorld({ ...SETTINGS, ...props });
    w.mailer.quota = mailQuota;
    const staffMails = () => w.mailer.outbox.filter((mail) => mail.to === 'duty@example.org');
    return { props: w.props, clock: w.clock, mailer: w.mailer, tick: () => tick(w), incident: () => incident(w, 'RUNS_MISSED'), staffMails };
  }

  it('a delivery waited through 7 hours without a run: this run replies, mails staff once that runs did not happen for 7 h, and the next run ends it silently', () => {
    const w = setUp({ [LAST_SWEEP_PROPERTY]: String(T0 - 7 * HOUR_MS), [DIRTY_PROPERTY]: String(T0 - 6 * HOUR_MS) });
    w.tick();
    expect(w.mailer.outbox.map((mail) => mail.to)).toContain('mina.okafor@example.com');
    const mails = w.staffMails();
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain('Queue runs did not happen');
    expect(mails[0].body).toContain(`processQueue did not run from ${iso(T0 - 7 * HOUR_MS)} to ${iso(T0)} (7 h 0 min) while deliveries waited`);
    expect(w.props.values[LAST_SWEEP_PROPERTY]).toBe(String(T0));
    w.clock.advance(MINUTE_MS);
    w.props.values[DIRTY_PROPERTY] = String(w.clock.now());
    w.tick();
    expect(w.incident()).toBeUndefined();
    expect(w.staffMails()).toHaveLength(1); // no reminder, no "Resolved" mail
  });

  it('runs that kept coming (a gap under the hour) raise nothing', () => {
    const w = setUp({ [LAST_SWEEP_PROPERTY]: String(T0 - 50 * MINUTE_MS), [DIRTY_PROPERTY]: String(T0 - 40 * MINUTE_MS) });
    w.tick();
    expect(w.incident()).toBeUndefined();
    expect(w.staffMails()).toEqual([]);
  });

  it('a mail held back for quota keeps the incident open until it goes: it is never ended unmailed', () => {
    const w = setUp({ [LAST_SWEEP_PROPERTY]: String(T0 - 7 * HOUR_MS), [DIRTY_PROPERTY]: String(T0 - 6 * HOUR_MS) }, 0);
    w.tick();
    expect(w.incident()).toMatchObject({ state: 'open', mailsSent: 0 });
    w.clock.advance(MINUTE_MS);
    w.tick();
    expect(w.incident()).toMatchObject({ state: 'open', mailsSent: 0 });
    w.mailer.quota = 100;
    w.clock.advance(MINUTE_MS);
    w.tick();
    expect(w.staffMails().filter((mail) => mail.subject.includes('Queue runs did not happen'))).toHaveLength(1);
    w.clock.advance(MINUTE_MS);
    w.tick();
    expect(w.incident()).toBeUndefined();
  });
});
