// Whether respondents are affected by rejected deliveries: never "no", since the calls Google refused leave no trace here.
import { assessUserImpact, type QueueHealth, type UserImpact } from './health';
import { plural } from '../domain/text';

export interface RefusedCallsFacts {
  /** Finished submissions refused today although they came with our token (rejection-kinds.ts): they wait in Rejected. */
  finishedSubmissionsRefused: number;
  /** TYPEFORM_TOKEN is set: the daily Typeform check can find what never reached formqueue. */
  typeformCheckOn: boolean;
}

/**
 * A burst of requests (a junk flood, a deadline) can pass Google's 30 simultaneous executions; Google then refuses the
 * rest before formqueue runs (docs/platform.md#quotas), with a 200 HTML page Typeform counts as delivered. Nothing
 * of a refused call reaches the script, so the queue's figures cannot clear them: a refused call may have been a real
 * delivery, and staff are told so and what to check, never "no user impact".
 */
export function assessRefusedCallsImpact(health: QueueHealth, now: number, facts: RefusedCallsFacts): UserImpact {
  const usual = assessUserImpact(health, now);
  const refused =
    facts.finishedSubmissionsRefused > 0
      ? `${plural(facts.finishedSubmissionsRefused, 'finished submission', 'finished submissions')} came with the webhook token and ${facts.finishedSubmissionsRefused === 1 ? 'was' : 'were'} refused today (the detail says why): those respondents get no reply until staff accept them from the Rejected sheet (formqueue → Accept rejected delivery). `
      : '';
  const check = facts.typeformCheckOn
    ? "the daily Typeform check queues any it finds for approval once they are 12 hours old (formqueue → Check Typeform for missed submissions runs it now)"
    : 'with Script Property TYPEFORM_TOKEN set, a daily Typeform check would find them and queue them for approval (docs/reconciliation.md)';
  const mayBe =
    'A respondent may be affected even so: past 30 simultaneous executions Google refuses the rest before formqueue runs, and Typeform counts that ' +
    "answer as delivered, so during a burst of rejected requests a real delivery may have been refused without a trace here. Check the webhook's " +
    `delivery log in Typeform (the form → Connect → Webhooks → View deliveries) for answers that are not formqueue's JSON; ${check}.`;
  const waiting = usual.affected === true ? ` ${usual.statement}` : '';
  return {
    affected: facts.finishedSubmissionsRefused > 0 || usual.affected === true ? true : 'possibly',
    statement: `${refused}${mayBe}${waiting}`,
  };
}
