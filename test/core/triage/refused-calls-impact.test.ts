// Respondents affected by rejected deliveries: "Yes" when a finished submission was refused or rows wait, else "Possibly", never "No".
import { describe, expect, it } from 'vitest';
import { computeHealth, healthWhenUnreadable } from '../../../src/core/triage/health';
import { assessRefusedCallsImpact } from '../../../src/core/triage/refused-calls-impact';
import { MINUTE, queueRow, T0 } from '../fakes/rows';

const MAY_BE = 'A respondent may be affected even so: past 30 simultaneous executions Google refuses the rest before formqueue runs';
const CHECK_ON = 'the daily Typeform check queues any it finds for approval once they are 12 hours old (formqueue → Check Typeform for missed submissions runs it now).';
const CHECK_OFF = 'with Script Property TYPEFORM_TOKEN set, a daily Typeform check would find them and queue them for approval (docs/reconciliation.md).';

describe('assessRefusedCallsImpact', () => {
  const idle = computeHealth([], T0);
  const waiting = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 4 * MINUTE })], T0);
  it.each([
    ['junk only, nothing waiting: possibly, never no', idle, 0, false, 'possibly', [MAY_BE, CHECK_OFF]],
    ['junk only, nothing waiting, the Typeform check on', idle, 0, true, 'possibly', [MAY_BE, CHECK_ON]],
    ['a finished submission refused with our token: yes, and where it waits', idle, 1, true, true, ['1 finished submission came with the webhook token and was refused today (the detail says why): those respondents get no reply until staff accept them from the Rejected sheet (formqueue → Accept rejected delivery).', MAY_BE]],
    ['three refused', idle, 3, false, true, ['3 finished submissions came with the webhook token and were refused today']],
    ['rows waiting: yes, with the queue\'s own words', waiting, 0, false, true, [MAY_BE, '1 respondent is waiting for a reply (PENDING 1; the oldest has waited 4 min); they get it once this clears.']],
    ['the queue never read: still possibly, not unknown', healthWhenUnreadable(T0, null), 0, false, 'possibly', [MAY_BE]],
  ] as const)('%s', (_case, health, finishedSubmissionsRefused, typeformCheckOn, affected, says) => {
    const impact = assessRefusedCallsImpact(health, T0, { finishedSubmissionsRefused, typeformCheckOn });
    expect(impact.affected).toBe(affected);
    for (const text of says) expect(impact.statement).toContain(text);
    expect(impact.statement).not.toMatch(/no (user impact|respondent is affected)/);
  });
});

describe('assessRefusedCallsImpact, exactly', () => {
  it('junk only with nothing waiting says the refusal and where to check, and ends there', () => {
    expect(assessRefusedCallsImpact(computeHealth([], T0), T0, { finishedSubmissionsRefused: 0, typeformCheckOn: false })).toEqual({
      affected: 'possibly',
      statement: `${MAY_BE}, and Typeform counts that answer as delivered, so during a burst of rejected requests a real delivery may have been refused without a trace here. Check the webhook's delivery log in Typeform (the form → Connect → Webhooks → View deliveries) for answers that are not formqueue's JSON; ${CHECK_OFF}`,
    });
  });
});
