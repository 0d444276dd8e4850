// A self-test check's result (verdict, evidence, advice), what a probe hands it, and the evidence kept short and redacted.
import { redact } from '../domain/failures/redact';

/** `warn`: formqueue works, but a safety net is off that the operator may want on (the advice says how). */
export type Verdict = 'pass' | 'fail' | 'unknown' | 'warn';

export interface CheckResult {
  /** Stable id, also the anchor of its section in docs/self-test.md. */
  id: CheckId;
  title: string;
  verdict: Verdict;
  evidence: string;
  /** What it means for formqueue and what to do; set for fail, unknown and warn. */
  advice?: string;
}

export type CheckId = 'plain-text' | 'text-finder' | 'triggers' | 'identity' | 'mail-quota' | 'gemini' | 'typeform' | 'missed-webhooks' | 'web-app';

/** A probe either observed something or threw; the error text is evidence too. */
export type Probe<T> = { ok: true; value: T } | { ok: false; error: string };

const EVIDENCE_CHARS = 300;

/** One line of evidence, secrets removed, cut to EVIDENCE_CHARS. */
export function shortEvidence(text: string): string {
  const line = redact(text).replace(/\s+/g, ' ').trim();
  return line.length > EVIDENCE_CHARS ? `${line.slice(0, EVIDENCE_CHARS - 1)}…` : line;
}

/** The result when the probe itself threw: unknown, with its error as the evidence. */
export function probeFailed(id: CheckId, title: string, error: string, advice: string): CheckResult {
  return { id, title, verdict: 'unknown', evidence: `the probe itself failed: ${shortEvidence(error)}`, advice };
}
