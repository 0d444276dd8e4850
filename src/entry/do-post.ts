// The web app's doPost: wires Apps Script to intake and always answers JSON, whatever happens.
import { messageOf } from '../core/domain/failures/errors';
import { handleDelivery, type IntakeAnswer } from '../core/intake/intake';
import { redact } from '../core/domain/failures/redact';
import { keepUnhandledBody, webhookDeps } from '../gas/intake-service';

function json(answer: IntakeAnswer): GoogleAppsScript.Content.TextOutput {
  return ContentService.createTextOutput(JSON.stringify(answer)).setMimeType(ContentService.MimeType.JSON);
}

/**
 * A thrown doPost still answers 200 with an HTML error page, and Typeform would not resend what it
 * believes was delivered (see docs/platform.md#web-apps): so nothing escapes this function.
 */
export function doPost(e: GoogleAppsScript.Events.DoPost): GoogleAppsScript.Content.TextOutput {
  let body = '';
  let token: string | undefined;
  try {
    body = e && e.postData ? String(e.postData.contents ?? '') : '';
    token = e && e.parameter ? e.parameter.token : undefined;
    return json(handleDelivery({ token, body }, webhookDeps()));
  } catch (error) {
    try {
      console.error(`doPost failed before intake could decide: ${redact(messageOf(error))}`);
    } catch {
      // Even logging may fail; the answer below must still go out.
    }
    keepUnhandledBody(body, token);
    return json({ ok: false, error: 'internal_error' });
  }
}
