// The operator's footer of a staff mail: codes, submission ids and repository pointers, kept out of the staff's part.
import type { MailPart } from './mail-text';

export const OPERATOR_FOOTER_HEADING = 'For the person who set this up';

/** A pointer into formqueue's repository, in parentheses: "(docs/oauth-scopes.md)", "(see docs/x.md#y)". */
const REPO_POINTER = /\s*\((?:see\s+)?((?:docs|src|scripts)\/[^\s)]+)\)/g;

/**
 * The staff's parts with every repository pointer taken out, and the pointers found (in order, once each): staff
 * cannot open a repository path, whoever set formqueue up can.
 */
export function withoutRepoPointers(parts: readonly MailPart[]): { parts: MailPart[]; pointers: string[] } {
  const pointers: string[] = [];
  const strip = (text: string) =>
    text.replace(REPO_POINTER, (_match, path: string) => {
      if (!pointers.includes(path)) pointers.push(path);
      return '';
    });
  const cleaned = parts.map((part): MailPart => (part.kind === 'pre' ? part : { ...part, text: strip(part.text) }));
  return { parts: cleaned, pointers };
}

/** A text with its repository pointers taken out: where no footer follows (the Queue health dialog). */
export function staffWords(text: string): string {
  return text.replace(REPO_POINTER, '');
}

export interface OperatorDetails {
  /** "GEMINI_DAILY_QUOTA (class: quota)", or the codes a summary lists: what the docs and the Log are searched by. */
  codes: readonly string[];
  /** "row 4: ev-4" for each listed row with an event_id. */
  rowIds?: readonly string[];
  /** Settings and switches only the operator changes ("Sent folder check: …"). */
  notes?: readonly string[];
  pointers?: readonly string[];
  /** The raw error (a stack trace), kept verbatim. */
  lastError?: string;
}

/** The footer, last in the mail: one heading, then one line per kind of detail present (nothing when none is). */
export function operatorFooterParts(details: OperatorDetails): MailPart[] {
  const parts: MailPart[] = [{ kind: 'heading', text: OPERATOR_FOOTER_HEADING }];
  if (details.codes.length > 0) parts.push({ kind: 'field', label: details.codes.length === 1 ? 'Code' : 'Codes', text: details.codes.join(', ') });
  if (details.rowIds && details.rowIds.length > 0) parts.push({ kind: 'field', label: 'Rows by event_id', text: details.rowIds.join(', ') });
  for (const note of details.notes ?? []) parts.push({ kind: 'line', text: note });
  if (details.pointers && details.pointers.length > 0) parts.push({ kind: 'field', label: 'In the repository', text: details.pointers.join(', ') });
  if (details.lastError) parts.push({ kind: 'line', text: 'Last error:' }, { kind: 'pre', text: details.lastError });
  return parts.length === 1 ? [] : parts;
}
