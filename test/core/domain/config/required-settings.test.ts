// The Script Properties formqueue cannot run without: the message that names a missing one, says what it is for and how to set it.
import { describe, expect, it } from 'vitest';
import { missingRequiredMessage } from '../../../../src/core/domain/config/required-settings';

describe('missingRequiredMessage', () => {
  it.each([
    ['WEBHOOK_TOKEN', 'the secret in the webhook URL Typeform calls'],
    ['GEMINI_API_KEY', 'the Gemini API key, from Google AI Studio'],
    ['STAFF_EMAILS', 'comma-separated addresses that get triage mail'],
    ['SPREADSHEET_ID', 'the id of the formqueue spreadsheet, from its URL'],
  ] as const)('%s says what it is for', (key, why) => {
    expect(missingRequiredMessage(key)).toBe(
      `Script Property ${key} is not set (${why}). Set it in the Apps Script editor: Project Settings → Script Properties → Add script property.`,
    );
  });

  it('a setting formqueue can run without, asked for by name, is said to be needed without a reason of its own', () => {
    expect(missingRequiredMessage('PAUSED')).toBe(
      'Script Property PAUSED is not set (formqueue needs it). Set it in the Apps Script editor: Project Settings → Script Properties → Add script property.',
    );
  });
});
