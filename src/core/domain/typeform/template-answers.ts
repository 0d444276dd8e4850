// A row's payload as the values its templates substitute: answers by field ref and id, hidden fields, variables, score.
import { templateValues } from './answers';
import { parseTypeformBody } from './typeform-payload';

/**
 * Placeholder name → text, from the row's raw payload JSON (see templateValues). Null when the payload is not
 * Typeform JSON (e.g. a pointer into Payloads that the caller did not resolve).
 */
export function answerValuesByRef(payloadJson: string): Record<string, string> | null {
  const parsed = parseTypeformBody(payloadJson);
  return parsed.ok ? templateValues(parsed.delivery) : null;
}
