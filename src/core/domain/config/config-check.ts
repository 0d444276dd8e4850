// Config sheet cells judged one by one (yes/no columns, addresses, model ids, placeholders, send windows): the on-edit note and the run's CONFIG_SHEET_INVALID say the same.
import { isEmailAddress } from '../mail/mail-addresses';
import { placeholdersIn } from '../mail/templates';
import { parseSendHours, parseTimeZone } from '../mail/send-window';

/** Columns that hold yes or no: Set up gives them checkboxes. */
export const YES_NO_COLUMNS = ['enabled', 'approval_required', 'allow_phone_numbers'] as const;

const YES = /^(true|yes|y|on|1|x|✓)$/i;
// A blank cell is no: a new row, or a checkbox never ticked.
const NO = /^(false|no|n|off|0|)$/i;

/** True, false, or null when the cell is neither (e.g. "yes please"): a reading the caller must not guess. */
export function readYesNo(value: unknown): boolean | null {
  // String(true) is "true", String(null) "null" and String(undefined) "undefined": the last two are empty cells.
  const text = value === null || value === undefined ? '' : String(value).trim();
  if (YES.test(text)) return true;
  if (NO.test(text)) return false;
  return null;
}

/**
 * A model id as the Gemini API names its models (gemini-2.5-flash, gemini-3.5-flash-lite, gemma-3-27b-it, optionally
 * after "models/"): lowercase letters, digits, dots and dashes (https://ai.google.dev/gemini-api/docs/models).
 */
const MODEL_ID = /^(models\/)?(gemini|gemma)-[a-z0-9][a-z0-9.-]*$/;

/** Names that never exist when the prompt is filled in: the reply and its reference are made after Gemini answers. */
const NOT_IN_PROMPT = ['result', 'mail_ref'];

function addressProblem(column: string, text: string): string | null {
  const bad = text.split(/[,;\s]+/).filter((address) => address !== '' && !isEmailAddress(address));
  if (bad.length === 0) return null;
  return `${column} "${bad.join(', ')}" is not an email address; write address(es) separated by commas, or leave it empty`;
}

function placeholderProblem(column: string, text: string): string | null {
  const opens = (text.match(/\{\{/g) ?? []).length;
  const closes = (text.match(/\}\}/g) ?? []).length;
  if (opens !== closes) return `${column} has a placeholder that is not closed: write each one as {{name}}`;
  if (column !== 'prompt') return null;
  const early = placeholdersIn(text).filter((name) => NOT_IN_PROMPT.includes(name));
  if (early.length === 0) return null;
  return `prompt uses ${early.map((name) => `{{${name}}}`).join(', ')}, which only exists once the reply is written; use it in subject or body instead`;
}

/** A send_hours or time_zone cell the send step could not read (send-window.ts), said as the on-edit note. */
function windowProblem(column: 'send_hours' | 'time_zone', text: string): string | null {
  try {
    if (column === 'send_hours') parseSendHours('', text);
    else parseTimeZone('', text);
    return null;
  } catch {
    return column === 'send_hours'
      ? `send_hours "${text}" is not a window: write the hours replies may go out as HH:MM-HH:MM (e.g. 08:00-20:00), or leave it empty for any time`
      : `time_zone "${text}" is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script's time zone`;
  }
}

/** What is wrong with one Config cell under `header`, in a sentence for the person who typed it; null when it is fine. */
export function configCellProblem(header: string, value: unknown): string | null {
  const column = header.trim().toLowerCase();
  const text = value === null || value === undefined ? '' : String(value).trim();
  if ((YES_NO_COLUMNS as readonly string[]).includes(column)) {
    return readYesNo(value) === null ? `${column} "${text}" is neither yes nor no: tick the checkbox for yes, leave it empty for no` : null;
  }
  switch (column) {
    case 'reply_to':
    case 'bcc':
      return addressProblem(column, text);
    case 'model': {
      // A list in order of preference (a retired model gives way to the next): each id is judged.
      const wrong = unlikelyModelIds(text);
      return wrong.length === 0 ? null : `model "${wrong[0]}" is not a Gemini model id (like gemini-2.5-flash; several are separated by commas); leave it empty for GEMINI_MODEL`;
    }
    case 'prompt':
    case 'subject':
    case 'body':
      return placeholderProblem(column, text);
    case 'send_hours':
    case 'time_zone':
      return windowProblem(column, text);
    default:
      return null;
  }
}

/**
 * The problems a run reports for one Config row: the cells whose reading would change what is mailed (a yes/no that is
 * neither, an address that is not one). A model name or a placeholder is judged when it is used (Gemini's answer, the
 * template), so a name formqueue does not know yet is never reported as wrong before it is tried.
 */
export function rowProblems(formId: string, cells: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const column of [...YES_NO_COLUMNS, 'reply_to', 'bcc']) {
    if (!(column in cells)) continue;
    const problem = configCellProblem(column, cells[column]);
    if (problem !== null) problems.push(`Config for form "${formId}": ${problem}`);
  }
  return problems;
}

/** The ids of a model list ("gemini-3.5-flash, gemini-3.5-flash-lite") that do not look like Gemini model ids. */
export function unlikelyModelIds(list: string): string[] {
  return list.split(',').map((id) => id.trim()).filter((id) => id !== '' && !MODEL_ID.test(id));
}
