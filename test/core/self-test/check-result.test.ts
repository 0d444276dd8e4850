// A self-test check's evidence is one short line with the secrets taken out; a probe that threw is "unknown", not a fail.
import { describe, expect, it } from 'vitest';
import { probeFailed, shortEvidence } from '../../../src/core/self-test/check-result';

describe('shortEvidence', () => {
  it('joins the lines and blanks of the text into one line', () => {
    expect(shortEvidence('  HTTP 403\n\n  {"error":\t"forbidden"}  ')).toBe('HTTP 403 {"error": "forbidden"}');
  });

  it('takes an API key out of the evidence', () => {
    const evidence = shortEvidence('GET https://generativelanguage.googleapis.com/v1beta/models?key=AIzaSyA1234567890abcdefghijklmnopqrstu failed');
    expect(evidence).not.toContain('AIzaSyA1234567890abcdefghijklmnopqrstu');
  });

  it('keeps 300 characters: a longer line is cut to 299 and an ellipsis', () => {
    const exactly300 = `${'ab '.repeat(99)}abc`;
    expect(shortEvidence(exactly300)).toBe(exactly300);
    const longer = `${'ab '.repeat(100)}ab`;
    expect(shortEvidence(longer)).toBe(`${longer.slice(0, 299)}…`);
  });
});

describe('probeFailed', () => {
  it('is unknown, with the probe\'s own error as one line of evidence and the advice given', () => {
    expect(probeFailed('gemini', 'Gemini answers', 'Exception: Address unavailable\n  at probe', 'Run the self-test again later.')).toEqual({
      id: 'gemini',
      title: 'Gemini answers',
      verdict: 'unknown',
      evidence: 'the probe itself failed: Exception: Address unavailable at probe',
      advice: 'Run the self-test again later.',
    });
  });
});
