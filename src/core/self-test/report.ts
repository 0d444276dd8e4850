// The self-test report: one block per check (verdict, evidence, what to do), the Log lines, and the Gemini probe request.
import { generationConfigFor, SYSTEM_INSTRUCTION } from '../domain/gemini/gemini';
import type { GeminiRequest } from '../domain/ports';
import type { LogEntry } from '../domain/sheet-ports';
import { formatTime } from '../domain/text';
import type { CheckResult } from './check-result';

const LABELS = { pass: 'PASS', fail: 'FAIL', unknown: 'UNKNOWN', warn: 'WARN' } as const;
export const SELF_TEST_DOC = 'docs/self-test.md';

export function selfTestReport(results: readonly CheckResult[], now: number): string {
  const count = (verdict: CheckResult['verdict']) => results.filter((r) => r.verdict === verdict).length;
  const head = `formqueue self-test, ${formatTime(now)}: ${count('pass')} pass, ${count('fail')} fail, ${count('unknown')} unknown${count('warn') > 0 ? `, ${count('warn')} warn` : ''}`;
  const blocks = results.map((r) => [
    `${LABELS[r.verdict]}: ${r.title}`,
    `  evidence: ${r.evidence}`,
    ...(r.advice ? [`  what to do: ${r.advice} (${SELF_TEST_DOC}#${r.id})`] : []),
  ].join('\n'));
  return [head, '', ...blocks].join('\n');
}

/** One Log line per check, so the result stays in the spreadsheet after the dialog is closed. */
export function selfTestLogEntries(results: readonly CheckResult[], user: string, now: number): LogEntry[] {
  return results.map((r) => ({ at: now, eventId: 'self-test', from: '', to: LABELS[r.verdict], by: user, detail: `${r.title}: ${r.evidence}` }));
}

/** The smallest real request with the reply's own settings (thinking included), so a model that refuses them fails here first. */
export function geminiProbeRequest(model: string): GeminiRequest {
  return {
    model,
    body: {
      contents: [{ role: 'user', parts: [{ text: 'This is a connection test. Reply with the single word OK.' }] }],
      systemInstruction: { parts: [{ text: SYSTEM_INSTRUCTION }] },
      generationConfig: generationConfigFor(model),
    },
  };
}
