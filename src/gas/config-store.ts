// ConfigStore port over the Config sheet: one read of the whole sheet (one service call), rows by header name.
import { formConfigsFromValues } from '../core/domain/config/form-config';
import { CONFIG_EDITED_PROPERTY } from '../core/domain/config/forms-mirror';
import type { PropertyStore } from '../core/domain/ports';
import type { ConfigStore } from '../core/domain/sheet-ports';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { requireSheet } from './spreadsheet';

/**
 * Every cell of the Config sheet up to its last row and column with data, in one call: getSheetValues with -1 rows and
 * columns "is equivalent to getting the very last row or column that has data in the sheet"
 * (https://developers.google.com/apps-script/reference/spreadsheet/sheet#getSheetValues(Integer,Integer,Integer,Integer)),
 * where getDataRange().getValues() takes two. A sheet with no data at all has no such block: read as its data range.
 */
function readConfigValues(sheet: GoogleAppsScript.Spreadsheet.Sheet): unknown[][] {
  try {
    return sheet.getSheetValues(1, 1, -1, -1);
  } catch {
    return sheet.getDataRange().getValues();
  }
}

export function createConfigStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): ConfigStore {
  return {
    readForms() {
      return formConfigsFromValues(readConfigValues(requireSheet(spreadsheet, SHEETS.config)));
    },
  };
}

/** The on-edit trigger saw a person edit the Config sheet: intake's copy of its forms is stale from now on. */
export function noteConfigEdit(sheetName: string, props: PropertyStore, now: number): void {
  if (sheetName === SHEETS.config) props.set(CONFIG_EDITED_PROPERTY, String(now));
}
