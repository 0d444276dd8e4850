// The Script Properties formqueue cannot run without, and the message that names a missing one and how to set it.
import type { SETTING_KEYS, Settings } from './settings';

/** The message for a required setting that is missing: names it and says how to set it. */
export function missingSettingMessage(key: string, why: string): string {
  return `Script Property ${key} is not set (${why}). Set it in the Apps Script editor: Project Settings → Script Properties → Add script property.`;
}

interface RequiredSetting {
  key: (typeof SETTING_KEYS)[number];
  /** Printed in the message, so staff know what the value is for and where to find it. */
  why: string;
  isSet(settings: Settings): boolean;
  /** True when the spreadsheet the script is bound to stands in (menus and triggers inside it); checked when it is opened. */
  boundSpreadsheetStandsIn?: boolean;
}

/** Script Properties formqueue cannot run without: Set up reports them, processQueue raises CONFIG_MISSING for them. */
export const REQUIRED_SETTINGS: readonly RequiredSetting[] = [
  { key: 'WEBHOOK_TOKEN', why: 'the secret in the webhook URL Typeform calls', isSet: (s) => s.webhookToken !== '' },
  { key: 'GEMINI_API_KEY', why: 'the Gemini API key, from Google AI Studio', isSet: (s) => s.geminiApiKey !== '' },
  { key: 'STAFF_EMAILS', why: 'comma-separated addresses that get triage mail', isSet: (s) => s.staffEmails.length > 0 },
  {
    key: 'SPREADSHEET_ID',
    why: 'the id of the formqueue spreadsheet, from its URL',
    isSet: (s) => s.spreadsheetId !== '',
    boundSpreadsheetStandsIn: true,
  },
];

/** The message for a required setting that is missing, by its key. */
export function missingRequiredMessage(key: RequiredSetting['key']): string {
  const required = REQUIRED_SETTINGS.find((setting) => setting.key === key);
  return missingSettingMessage(key, required ? required.why : 'formqueue needs it');
}

/** One message per required setting missing now (SPREADSHEET_ID is checked when the spreadsheet is opened). */
export function missingSettings(settings: Settings): string[] {
  return REQUIRED_SETTINGS.filter((setting) => !setting.boundSpreadsheetStandsIn && !setting.isSet(settings)).map((setting) =>
    missingRequiredMessage(setting.key),
  );
}
