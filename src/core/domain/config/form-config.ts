// The Config sheet: one row per form (`*` = every form), read by header name into FormConfig.
import { readYesNo, rowProblems } from './config-check';
import type { FormConfig } from '../sheet-ports';

export const CONFIG_HEADERS = [
  'form_id',
  'enabled',
  'prompt',
  'model',
  'subject',
  'body',
  'recipient_field',
  'approval_required',
  'reply_to',
  'bcc',
  'sender_name',
  // Added last so a Config made before it keeps its columns (Set up adds it on the right).
  'send_hours',
  'allowed_link_domains',
  'allow_phone_numbers',
  'time_zone',
] as const;

export const ANY_FORM = '*';

/**
 * A yes/no cell that reads as neither is never guessed as "no" where that is the unsafe reading: approval stays on
 * (nothing goes out unreviewed), and the run says what it could not read (CONFIG_SHEET_INVALID).
 */
const WHEN_UNREADABLE = { enabled: false, approval_required: true, allow_phone_numbers: false } as const;
const CONSEQUENCE = {
  enabled: 'until it is fixed the form counts as not enabled (its deliveries are kept in Rejected)',
  approval_required: "until it is fixed the form's replies wait for approval",
  allow_phone_numbers: 'until it is fixed a reply naming a phone number waits for a person',
} as const;

/** A form with nothing configured: every template blank (the defaults apply), approval off. */
export function blankFormConfig(formId: string): FormConfig {
  return { formId, enabled: true, prompt: '', model: '', subject: '', body: '', recipientField: '', approvalRequired: false, replyTo: '', bcc: '', senderName: '', sendHours: '', allowedLinkDomains: '', allowPhoneNumbers: false };
}

/** Rows of the Config sheet (header first) → forms; rows without a form id are skipped. */
export function formConfigsFromValues(values: readonly (readonly unknown[])[]): FormConfig[] {
  if (values.length === 0) return [];
  const header = values[0].map((cell) => String(cell).trim().toLowerCase());
  const at = (row: readonly unknown[], name: string) => {
    // A missing column is index -1, and row[-1] is undefined: an empty value like an empty cell.
    return String(row[header.indexOf(name)] ?? '').trim();
  };
  const forms: FormConfig[] = [];
  const yesNo = (row: readonly unknown[], name: keyof typeof WHEN_UNREADABLE) => readYesNo(row[header.indexOf(name)]) ?? WHEN_UNREADABLE[name];
  for (const row of values.slice(1)) {
    const formId = at(row, 'form_id');
    if (formId === '') continue;
    const cells = Object.fromEntries(header.map((name, i) => [name, row[i]]));
    const problems = rowProblems(formId, cells).map((problem) => {
      const column = (Object.keys(CONSEQUENCE) as (keyof typeof CONSEQUENCE)[]).find((name) => problem.includes(`: ${name} "`));
      return column ? `${problem}; ${CONSEQUENCE[column]}` : problem;
    });
    forms.push({
      formId,
      enabled: header.includes('enabled') ? yesNo(row, 'enabled') : true,
      prompt: at(row, 'prompt'),
      model: at(row, 'model'),
      subject: at(row, 'subject'),
      body: at(row, 'body'),
      recipientField: at(row, 'recipient_field'),
      approvalRequired: yesNo(row, 'approval_required'),
      replyTo: at(row, 'reply_to'),
      bcc: at(row, 'bcc'),
      senderName: at(row, 'sender_name'),
      sendHours: at(row, 'send_hours'),
      allowedLinkDomains: at(row, 'allowed_link_domains'),
      allowPhoneNumbers: yesNo(row, 'allow_phone_numbers'),
      // Only from a Config that has the column (Set up adds it), so a form's blank cell still takes the `*` row's zone.
      ...(header.includes('time_zone') ? { timeZone: at(row, 'time_zone') } : {}),
      ...(problems.length > 0 ? { problems } : {}),
    });
  }
  return forms;
}

/**
 * The configuration that applies to a form: its own row, with blank cells filled from the `*` row.
 * Null when the form is not enabled (no row and no enabled `*` row, or its own row says disabled).
 */
export function configFor<Form extends Pick<FormConfig, 'formId' | 'enabled'>>(formId: string, forms: readonly Form[]): Form | null {
  const own = forms.find((form) => form.formId === formId);
  const fallback = forms.find((form) => form.formId === ANY_FORM);
  if (own && !own.enabled) return null;
  if (!own) return fallback && fallback.enabled ? { ...fallback, formId } : null;
  if (!fallback) return own;
  const merged: Form = { ...own };
  const record = merged as unknown as Record<string, unknown>;
  const base = fallback as unknown as Record<string, unknown>;
  for (const key of Object.keys(merged)) if (record[key] === '') record[key] = base[key];
  return merged;
}
