// judgeOutage, table-driven: which rounds are a Gemini outage, when it is a lasting one, and when Gemini is proven reachable.
import { describe, expect, it } from 'vitest';
import { classifyGeminiOutcome, type GeminiVerdict } from '../../../src/core/domain/gemini/gemini-outcome';
import { judgeOutage } from '../../../src/core/processing/record-verdicts';
import type { GeminiOutcome } from '../../../src/core/domain/ports';
import { fixtureOutcome, geminiFixture, okOutcome } from '../memory-ports';

const verdict = (outcome: GeminiOutcome): GeminiVerdict => classifyGeminiOutcome(outcome);
const v503 = () => verdict(fixtureOutcome(503, 'error-503'));
const v500 = () => verdict({ kind: 'http', status: 500, body: '' });
const v408 = () => verdict({ kind: 'http', status: 408, body: '' });
const timeout = () => verdict({ kind: 'transport', message: 'Timeout: https://generativelanguage.googleapis.com' });
const notAsked = () => verdict({ kind: 'transport', message: 'the batch failed', notAsked: true });
const v429 = () => verdict(fixtureOutcome(429, 'error-429-per-minute'));
const ok = () => verdict(okOutcome());

/** No GEMINI_UNAVAILABLE open from an earlier run: this is the first run that sees the outage. */
const FIRST_RUN = null;
const priorHeld = (rowCount: number) => ({ rowCount });

describe('judgeOutage', () => {
  it.each([
    // name, verdicts, prior open incident, expected
    ['first run: one row, 503', [v503()], FIRST_RUN, { answered: false, lasting: false }],
    ['first run: three rows, 503 / time-out / 408', [v503(), timeout(), v408()], FIRST_RUN, { answered: false, lasting: false }],
    ['second run: one row unanswered, one row held back before (one row whose own request keeps failing)', [v500()], priorHeld(1), { answered: false, lasting: false }],
    ['second run: one row unanswered, none held back before', [timeout()], priorHeld(0), { answered: false, lasting: false }],
    ['second run: two rows unanswered, one held back before', [v503(), timeout()], priorHeld(1), { answered: false, lasting: true }],
    ['second run: two rows unanswered, none held back before', [v503(), v500()], priorHeld(0), { answered: false, lasting: true }],
    ['second run: one row unanswered, two held back before', [timeout()], priorHeld(2), { answered: false, lasting: true }],
    ['held-back rows: one answered beside 503s ends the outage', [v503(), ok(), v503()], priorHeld(5), { answered: true, lasting: false }],
    ['held-back rows: a 429 alone proves Gemini reachable', [v429()], priorHeld(5), { answered: true, lasting: false }],
    ['held-back rows: a 429 beside time-outs proves Gemini reachable', [timeout(), v429(), timeout()], priorHeld(5), { answered: true, lasting: false }],
    ['first run: a 429 beside a 503 is not an outage', [v503(), v429()], FIRST_RUN, { answered: true, lasting: false }],
    ['first run: every row answered', [ok(), ok()], FIRST_RUN, { answered: true, lasting: false }],
    ['held-back rows: a 404 (model not found) is an answer', [verdict(fixtureOutcome(404, 'error-404-model'))], priorHeld(3), { answered: true, lasting: false }],
    ['held-back rows: a rejected 400 is an answer', [verdict(fixtureOutcome(400, 'error-400-bad-key'))], priorHeld(3), { answered: true, lasting: false }],
    ['held-back rows: a blocked prompt is an answer', [verdict({ kind: 'http', status: 200, body: geminiFixture('blocked-prompt') })], priorHeld(3), { answered: true, lasting: false }],
    ['held-back rows: requests never asked prove nothing', [notAsked(), notAsked()], priorHeld(3), { answered: false, lasting: false }],
    ['held-back rows: a time-out beside a request never asked is no outage round', [timeout(), notAsked()], priorHeld(3), { answered: false, lasting: false }],
    ['no request in the round', [], priorHeld(3), { answered: false, lasting: false }],
  ] as const)('%s', (_name, verdicts, prior, expected) => {
    expect(judgeOutage(verdicts, () => prior)).toEqual(expected);
  });

  it('asks for the earlier outage only in a round where no request was answered', () => {
    let asked = 0;
    const prior = () => {
      asked++;
      return priorHeld(2);
    };
    judgeOutage([ok(), v503()], prior);
    judgeOutage([v429()], prior);
    judgeOutage([], prior);
    expect(asked).toBe(0);
    judgeOutage([v503(), timeout()], prior);
    expect(asked).toBe(1);
  });

  it('classifies 5xx, 408 and time-outs as the unanswered kind the judgement counts, and a 429 and a request never asked not', () => {
    for (const unanswered of [v503(), v500(), v408(), timeout()]) expect(unanswered).toMatchObject({ kind: 'retryable', outage: true });
    expect(v429()).toMatchObject({ kind: 'retryable', rateLimited: true });
    expect(v429()).not.toHaveProperty('outage');
    expect(notAsked()).toMatchObject({ kind: 'retryable', uncharged: true });
    expect(notAsked()).not.toHaveProperty('outage');
  });
});
