// The Config sheet: one row per form (`*` = every form), read by header name into FormConfig.
import type { FormConfig } from './ports';

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
] as const;

export const ANY_FORM = '*';

// String(true) is "true" and String(null) "null", so booleans and empty cells need no case of their own.
function truthy(value: unknown): boolean {
  return /^(true|yes|y|on|1|x|✓)$/i.test(String(value).trim());
}

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
  for (const row of values.slice(1)) {
    const formId = at(row, 'form_id');
    if (formId === '') continue;
    forms.push({
      formId,
      enabled: header.includes('enabled') ? truthy(row[header.indexOf('enabled')]) : true,
      prompt: at(row, 'prompt'),
      model: at(row, 'model'),
      subject: at(row, 'subject'),
      body: at(row, 'body'),
      recipientField: at(row, 'recipient_field'),
      approvalRequired: truthy(row[header.indexOf('approval_required')]),
      replyTo: at(row, 'reply_to'),
      bcc: at(row, 'bcc'),
      senderName: at(row, 'sender_name'),
      sendHours: at(row, 'send_hours'),
      allowedLinkDomains: at(row, 'allowed_link_domains'),
      allowPhoneNumbers: truthy(row[header.indexOf('allow_phone_numbers')]),
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
