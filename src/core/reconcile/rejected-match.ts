// Whether a Rejected body holds a Typeform response staff can accept there: the same response token, parsed, and no partial.
import { checkBodyShape } from '../domain/typeform/delivery-limits';
import { parseTypeformBody } from '../domain/typeform/typeform-payload';

/**
 * A Rejected row counts as holding a response only when its body is a delivery of that response: the whole token in
 * form_response.token (not a substring of some other field or token), and not a form_response_partial, which can
 * never be accepted into an answer. A finished response whose only trace is its partial is therefore found nowhere,
 * and the Typeform check queues it. Bodies intake would refuse to read (too large, too deep) hold nothing.
 */
export function rejectedBodyHolds(body: string, responseToken: string): boolean {
  if (responseToken === '' || checkBodyShape(body) !== null) return false;
  const parsed = parseTypeformBody(body);
  return parsed.ok && !parsed.delivery.partial && parsed.delivery.responseToken === responseToken;
}
