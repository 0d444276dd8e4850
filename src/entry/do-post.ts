// The web app's doPost: wires Apps Script to intake and always answers JSON, whatever happens.
import { handleDelivery, type IntakeAnswer, type IntakeDeps } from '../core/intake/intake';
import { messageOf } from '../core/errors';
import { redact } from '../core/redact';
import { readSettings } from '../core/settings';
import { createIntakeSheets } from '../gas/intake-sheets';
import { intakeLock } from '../gas/locks';
import { createScriptCache } from '../gas/script-cache';
import { createScriptPropertyStore } from '../gas/script-properties';
import { createSpillStore } from '../gas/spill-store';
import { openSpreadsheet } from '../gas/spreadsheet';
import { systemClock } from '../gas/system-clock';

function json(answer: IntakeAnswer): GoogleAppsScript.Content.TextOutput {
  return ContentService.createTextOutput(JSON.stringify(answer)).setMimeType(ContentService.MimeType.JSON);
}

export function intakeDeps(props = createScriptPropertyStore(), snapshot = props.getAll()): IntakeDeps {
  const { settings } = readSettings(snapshot);
  return {
    settings,
    clock: systemClock,
    lock: intakeLock(),
    cache: createScriptCache(),
    props,
    spill: createSpillStore(),
    openSheets: () => createIntakeSheets(openSpreadsheet(settings)),
    log: (message) => console.warn(message),
  };
}

/**
 * A thrown doPost still answers 200 with an HTML error page, and Typeform would not resend what it
 * believes was delivered (PLATFORM §B): so nothing escapes this function.
 */
export function doPost(e: GoogleAppsScript.Events.DoPost): GoogleAppsScript.Content.TextOutput {
  try {
    const body = e && e.postData ? String(e.postData.contents ?? '') : '';
    const token = e && e.parameter ? e.parameter.token : undefined;
    return json(handleDelivery({ token, body }, intakeDeps()));
  } catch (error) {
    try {
      console.error(`doPost failed before intake could decide: ${redact(messageOf(error))}`);
    } catch {
      // Even logging may fail; the answer below must still go out.
    }
    return json({ ok: false, error: 'internal_error' });
  }
}
