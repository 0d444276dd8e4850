// The operator's footer of a staff mail: repository pointers taken out of the staff's part, and the footer's lines.
import { describe, expect, it } from 'vitest';
import { OPERATOR_FOOTER_HEADING, operatorFooterParts, staffWords, withoutRepoPointers } from '../../../src/core/triage/operator-footer';
import type { MailPart } from '../../../src/core/triage/mail-text';

describe('withoutRepoPointers', () => {
  it.each<[string, string, string[]]>([
    ['Grant the scope again (docs/oauth-scopes.md).', 'Grant the scope again.', ['docs/oauth-scopes.md']],
    ['Read the guide (see docs/staff-guide.md#approvals) first.', 'Read the guide first.', ['docs/staff-guide.md#approvals']],
    ['Two places (src/gas/mailer.ts) and (scripts/build.mjs).', 'Two places and.', ['src/gas/mailer.ts', 'scripts/build.mjs']],
    ['Not a pointer (row 4) nor (docs) nor (notes/x.md).', 'Not a pointer (row 4) nor (docs) nor (notes/x.md).', []],
  ])('%j reads %j to staff; the operator gets %j', (text, staffText, pointers) => {
    expect(withoutRepoPointers([{ kind: 'line', text }])).toEqual({ parts: [{ kind: 'line', text: staffText }], pointers });
  });

  it('names each pointer once, in the order met, across parts; a field keeps its label; a verbatim part is left as it is', () => {
    const parts: MailPart[] = [
      { kind: 'field', label: 'What to do', text: 'See (docs/a.md).' },
      { kind: 'line', text: 'Again (docs/a.md), then (docs/b.md).' },
      { kind: 'pre', text: 'Error: x (docs/c.md)' },
    ];
    expect(withoutRepoPointers(parts)).toEqual({
      parts: [
        { kind: 'field', label: 'What to do', text: 'See.' },
        { kind: 'line', text: 'Again, then.' },
        { kind: 'pre', text: 'Error: x (docs/c.md)' },
      ],
      pointers: ['docs/a.md', 'docs/b.md'],
    });
  });
});

describe('staffWords', () => {
  it('takes every repository pointer out of a text and leaves the rest', () => {
    expect(staffWords('Check the key (docs/gemini.md) and the quota (see src/core/x.ts) (row 4).')).toBe('Check the key and the quota (row 4).');
  });
});

describe('operatorFooterParts', () => {
  const heading: MailPart = { kind: 'heading', text: OPERATOR_FOOTER_HEADING };

  it.each<[string, Parameters<typeof operatorFooterParts>[0], MailPart[]]>([
    ['nothing to tell: no footer at all', { codes: [], rowIds: [], notes: [], pointers: [], lastError: '' }, []],
    ['one code', { codes: ['GEMINI_DAILY_QUOTA (class: quota)'] }, [heading, { kind: 'field', label: 'Code', text: 'GEMINI_DAILY_QUOTA (class: quota)' }]],
    ['several codes, on one line', { codes: ['A', 'B'] }, [heading, { kind: 'field', label: 'Codes', text: 'A, B' }]],
    ['rows by event_id', { codes: [], rowIds: ['row 4: ev-4', 'row 5: ev-5'] }, [heading, { kind: 'field', label: 'Rows by event_id', text: 'row 4: ev-4, row 5: ev-5' }]],
    ['notes, a line each', { codes: [], notes: ['Sent folder check: off', 'Dry run: on'] }, [heading, { kind: 'line', text: 'Sent folder check: off' }, { kind: 'line', text: 'Dry run: on' }]],
    ['pointers', { codes: [], pointers: ['docs/a.md', 'docs/b.md'] }, [heading, { kind: 'field', label: 'In the repository', text: 'docs/a.md, docs/b.md' }]],
    ['the last error, verbatim', { codes: [], lastError: 'Error: x\n  at y' }, [heading, { kind: 'line', text: 'Last error:' }, { kind: 'pre', text: 'Error: x\n  at y' }]],
  ])('%s', (_name, details, parts) => {
    expect(operatorFooterParts(details)).toEqual(parts);
  });

  it('puts the details in a fixed order: codes, rows, notes, pointers, last error', () => {
    const parts = operatorFooterParts({ codes: ['A'], rowIds: ['row 2: ev-2'], notes: ['n'], pointers: ['docs/a.md'], lastError: 'E' });
    expect(parts.map((part) => ('label' in part ? part.label : part.text))).toEqual([OPERATOR_FOOTER_HEADING, 'Code', 'Rows by event_id', 'n', 'In the repository', 'Last error:', 'E']);
  });
});
