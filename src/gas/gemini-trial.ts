// One tiny Gemini request with a key or model staff are about to save (Set a Script Property…): the I/O of core/staff/gemini-trial.ts.
import { messageOf } from '../core/domain/failures/errors';
import type { GeminiOutcome } from '../core/domain/ports';
import { geminiProbeRequest } from '../core/self-test/report';
import { geminiTrialOf, judgeGeminiTrial, type TrialVerdict } from '../core/staff/gemini-trial';
import type { PropertyWrites } from '../core/staff/set-property';
import { createGeminiClient } from './gemini-client';

/** Null when the change is not Gemini's key or model (or there is no key to try it with); one UrlFetch call otherwise. */
export function tryGeminiChange(writes: PropertyWrites, current: Readonly<Record<string, string>>, baseUrl: string): TrialVerdict | null {
  const trial = geminiTrialOf(writes, current);
  if (trial === null) return null;
  let outcome: GeminiOutcome;
  try {
    [outcome] = createGeminiClient(baseUrl, trial.apiKey).generateAll([geminiProbeRequest(trial.model)]);
  } catch (error) {
    // No answer (a refused URL, a quota, no network) says nothing about the key or the model.
    outcome = { kind: 'transport', message: messageOf(error) };
  }
  return judgeGeminiTrial(outcome, trial.model);
}
