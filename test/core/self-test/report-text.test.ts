// The self-test report, its Log lines and the Gemini probe request, exactly.
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/core/self-test/check-result';
import { geminiProbeRequest, selfTestLogEntries, selfTestReport } from '../../../src/core/self-test/report';
import { generationConfigFor, SYSTEM_INSTRUCTION } from '../../../src/core/domain/gemini/gemini';

const results: CheckResult[] = [
  { id: 'mail-quota', title: 'T1', verdict: 'pass', evidence: 'E1' },
  { id: 'gemini', title: 'T2', verdict: 'unknown', evidence: 'E2', advice: 'A2' },
  { id: 'web-app', title: 'T3', verdict: 'fail', evidence: 'E3', advice: 'A3' },
];

describe('the self-test report', () => {
  it('a head line with the counts, then per check its verdict, evidence and (when there is any) what to do with the doc section', () => {
    expect(selfTestReport(results, Date.UTC(2026, 11, 1, 8, 5)).split('\n')).toEqual([
      'formqueue self-test, 2026-12-01 08:05 UTC: 1 pass, 1 fail, 1 unknown',
      '',
      'PASS: T1',
      '  evidence: E1',
      'UNKNOWN: T2',
      '  evidence: E2',
      '  what to do: A2 (docs/self-test.md#gemini)',
      'FAIL: T3',
      '  evidence: E3',
      '  what to do: A3 (docs/self-test.md#web-app)',
    ]);
  });

  it('one Log line per check, from nothing to the verdict', () => {
    expect(selfTestLogEntries(results, 'me@example.org', 7)).toEqual([
      { at: 7, eventId: 'self-test', from: '', to: 'PASS', by: 'me@example.org', detail: 'T1: E1' },
      { at: 7, eventId: 'self-test', from: '', to: 'UNKNOWN', by: 'me@example.org', detail: 'T2: E2' },
      { at: 7, eventId: 'self-test', from: '', to: 'FAIL', by: 'me@example.org', detail: 'T3: E3' },
    ]);
  });

  it('the Gemini probe: one short user turn, the reply\'s system instruction and generation settings', () => {
    expect(geminiProbeRequest('gemini-3.5-flash')).toEqual({
      model: 'gemini-3.5-flash',
      body: {
        contents: [{ role: 'user', parts: [{ text: 'This is a connection test. Reply with the single word OK.' }] }],
        systemInstruction: { parts: [{ text: SYSTEM_INSTRUCTION }] },
        generationConfig: generationConfigFor('gemini-3.5-flash'),
      },
    });
  });
});
