// ConfigStore port over the Config sheet: one read of the whole sheet, rows by header name.
import { formConfigsFromValues } from '../core/form-config';
import type { ConfigStore } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { requireSheet } from './spreadsheet';

export function createConfigStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): ConfigStore {
  return {
    readForms() {
      return formConfigsFromValues(requireSheet(spreadsheet, SHEETS.config).getDataRange().getValues());
    },
  };
}
