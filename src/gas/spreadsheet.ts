// Opens the formqueue spreadsheet: by SPREADSHEET_ID (a web app has no active spreadsheet), else the bound one.
import { codedError } from '../core/domain/failures/errors';
import type { Settings } from '../core/domain/config/settings';
import { missingRequiredMessage } from '../core/domain/config/required-settings';

export function openSpreadsheet(settings: Settings): GoogleAppsScript.Spreadsheet.Spreadsheet {
  if (settings.spreadsheetId !== '') return SpreadsheetApp.openById(settings.spreadsheetId);
  // Menus and on-edit triggers run inside the bound spreadsheet; doPost and clock triggers may not (see docs/platform.md#bound-spreadsheet).
  const active = SpreadsheetApp.getActiveSpreadsheet();
  if (active) return active;
  throw codedError('CONFIG_MISSING', missingRequiredMessage('SPREADSHEET_ID'));
}

export function requireSheet(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, name: string): GoogleAppsScript.Spreadsheet.Sheet {
  const sheet = spreadsheet.getSheetByName(name);
  if (sheet) return sheet;
  throw codedError('CONFIG_MISSING', `The spreadsheet has no "${name}" sheet. Run formqueue → Set up / repair from the spreadsheet menu.`);
}
