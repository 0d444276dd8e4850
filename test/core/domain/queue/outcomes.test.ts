// The outcome table: every class names a move the state table gives the system, attempts are charged only where the
// row's own request failed or succeeded, and every class is used by the processing code.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptsAfter, attemptsOnClaim, CLAIMED_FROM, OUTCOME_CLASSES, outcomeRule, outcomeTarget } from '../../../../src/core/domain/queue/outcomes';
import { codeOf } from '../../../../src/core/domain/failures/errors';
import { isSystemMove } from '../../../../src/core/domain/queue/transitions';
import type { Status } from '../../../../src/core/domain/queue/statuses';

const SEND_CLAIM_SOURCES: readonly Status[] = ['READY', 'APPROVED'];

describe('outcomeRule', () => {
  it.each(OUTCOME_CLASSES)('%s is a system move from each of its states', (outcome) => {
    const rule = outcomeRule(outcome);
    expect(rule.from.length).toBeGreaterThan(0);
    const targets = rule.to === CLAIMED_FROM ? SEND_CLAIM_SOURCES : [rule.to];
    for (const from of rule.from) for (const to of targets) expect(isSystemMove(from, to), `${from} → ${to}`).toBe(true);
  });

  it('only generation outcomes settle an attempt, and only a row\'s own failure or success charges it', () => {
    const byCharge = (charge: string) => OUTCOME_CLASSES.filter((outcome) => outcomeRule(outcome).attempt === charge);
    expect(byCharge('not charged')).toEqual(['not-asked', 'outage', 'systemic']);
    expect(byCharge('charged')).toEqual(['reply-written', 'reply-held', 'retryable', 'rate-limited', 'retries-spent', 'generation-permanent', 'stale-generating']);
    for (const outcome of [...byCharge('charged'), ...byCharge('not charged')]) expect(outcomeRule(outcome).from).toEqual(['GENERATING']);
  });

  it('what pauses generation names the incident it raises; what waits for back-off goes back to PENDING', () => {
    for (const outcome of OUTCOME_CLASSES) {
      const rule = outcomeRule(outcome);
      if (rule.pauses !== null) expect(rule.incident, outcome).not.toBeNull();
      if (rule.waits === 'back-off') expect(rule.to, outcome).toBe('PENDING');
      if (rule.waits === 'send window') expect(rule.to, outcome).toBe(CLAIMED_FROM);
    }
  });

  it('every class is applied somewhere in src/core/processing (no row of the table is decoration)', () => {
    const dir = join(__dirname, '../../../../src/core/processing');
    const source = readdirSync(dir).map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    for (const outcome of OUTCOME_CLASSES) expect(source.includes(`'${outcome}'`), outcome).toBe(true);
  });
});

describe('attempts started vs charged', () => {
  it.each([
    ['a claim starts one more attempt', () => attemptsOnClaim(2), 3],
    ['a charged outcome keeps the attempt the claim started', () => attemptsAfter(3, 'retryable'), 3],
    ['an outcome not charged settles at the count before the claim', () => attemptsAfter(3, 'systemic'), 2],
    ['never below zero (a claim whose count a person cleared)', () => attemptsAfter(0, 'outage'), 0],
    ['a stale claim (the run died mid-call) is charged', () => attemptsAfter(3, 'stale-generating'), 3],
  ])('%s', (_name, count, expected) => {
    expect(count()).toBe(expected);
  });
});

describe('outcomeTarget', () => {
  it('goes back to the state the send claim came from, and refuses to guess it', () => {
    expect(outcomeTarget('mail-quota', 'APPROVED')).toBe('APPROVED');
    expect(outcomeTarget('sent', 'APPROVED')).toBe('SENT');
    let thrown: unknown;
    try {
      outcomeTarget('not-mailed');
    } catch (error) {
      thrown = error;
    }
    expect(codeOf(thrown)).toBe('CODE_BUG');
    // The message names the outcome, so the triage mail's stack points at the caller that left the state out.
    expect(String((thrown as Error).message)).toContain('outcome not-mailed needs the state the claim came from');
  });
});
