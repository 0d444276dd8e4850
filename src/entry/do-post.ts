// The web app's doPost: wires Apps Script to intake and always answers JSON, whatever happens.
import { messageOf } from '../core/domain/failures/errors';
import { handleDelivery, type IntakeAnswer } from '../core/intake/intake';
import { redact } from '../core/domain/failures/redact';
import { keepUnhandledBody } from '../gas/intake-service';
import { intakeLockReleasedAtExit } from '../gas/locks';
import { createServices } from '../gas/services';

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
  const services = createServices();
  try {
    body = e && e.postData ? String(e.postData.contents ?? '') : '';
    token = e && e.parameter ? e.parameter.token : undefined;
    // doPost's execution ends once it answers, so its intake lock is released by that end.
    return json(handleDelivery({ token, body }, services.intake(intakeLockReleasedAtExit())));
  } catch (error) {
    try {
      console.error(`doPost failed before intake could decide: ${redact(messageOf(error))}`);
    } catch {
      // Even logging may fail; the answer below must still go out.
    }
    keepUnhandledBody(services, body, token);
    return json({ ok: false, error: 'internal_error' });
  }
}
