// The rows needing a person as the triage mail lists them: each row's lines, the error cell shown, and one step per reason.
import { describe, expect, it } from 'vitest';
import { computeHealth, type NeedsPersonRow, type QueueHealth } from '../../../src/core/triage/health';
import { ERROR_SHOWN_CHARS, needsPersonRowParts, needsPersonStepParts } from '../../../src/core/triage/needs-person-mail';
import { NEEDS_PERSON_GUIDE } from '../../../src/core/triage/needs-person';
import { T0 } from '../fakes/rows';
import { API_KEY, needsRow, SPREADSHEET_URL } from './fakes';

const redaction = { knownSecrets: [API_KEY], keep: [SPREADSHEET_URL] };
const healthOf = (needsPerson: NeedsPersonRow[], needsPersonCount = needsPerson.length): QueueHealth => ({ ...computeHealth([], T0), needsPerson, needsPersonCount });
const failedLabel = NEEDS_PERSON_GUIDE['failed-other'].label;
/** `length` characters of words ending in "x" (a run of one letter would be redacted as a token). */
const words = (length: number) => 'x'.padStart(length, 'word ');
const errorLine = (row: NeedsPersonRow) => needsPersonRowParts(healthOf([row]), T0, redaction)[1].text;

describe('needsPersonRowParts', () => {
  it('a row without a link or status is a plain line saying so, then its event_id and reason', () => {
    expect(needsPersonRowParts(healthOf([needsRow(5, '', null)]), T0, redaction)).toEqual([
      { kind: 'line', text: '  row 5 (no status, mail_ref none yet)' },
      { kind: 'line', text: `      event_id ev-5 · ${NEEDS_PERSON_GUIDE['unknown-status'].label}` },
    ]);
  });

  it.each<[string, string, string]>([
    ['blanks and line breaks are one space, none at the ends', '  MAIL_PERMANENT:\n\n  Invalid   email \t', 'MAIL_PERMANENT: Invalid email'],
    ['a secret is redacted', `GEMINI_REJECTED: key ${API_KEY} refused`, 'GEMINI_REJECTED: key [redacted] refused'],
    [`exactly ${ERROR_SHOWN_CHARS} characters are shown whole`, words(ERROR_SHOWN_CHARS), words(ERROR_SHOWN_CHARS)],
    [`a longer cell is cut to ${ERROR_SHOWN_CHARS} with an ellipsis`, words(ERROR_SHOWN_CHARS + 1), `${words(ERROR_SHOWN_CHARS + 1).slice(0, ERROR_SHOWN_CHARS - 1)}…`],
  ])('the error cell: %s', (_name, error, shown) => {
    expect(errorLine(needsRow(4, 'FAILED', null, { error }))).toBe(`      event_id ev-4 · ${failedLabel} · ${shown}`);
  });

  it('a row with no event_id and an error of blanks shows neither', () => {
    expect(errorLine(needsRow(4, 'FAILED', null, { eventId: '', error: ' \n ' }))).toBe(`      ${failedLabel}`);
  });

  it('no row needing a person gives no lines', () => {
    expect(needsPersonRowParts(healthOf([]), T0, redaction)).toEqual([]);
  });
});

describe('needsPersonStepParts', () => {
  it('one step per reason present, naming its row or rows, under one heading', () => {
    const rows = [needsRow(3, 'FAILED', null), needsRow(7, 'NEEDS_REVIEW', null), needsRow(9, 'FAILED', null)];
    const step = (reason: 'failed-other' | 'parked-by-edit', which: string) => {
      const guide = NEEDS_PERSON_GUIDE[reason];
      return { kind: 'line', text: `${guide.label.charAt(0).toUpperCase()}${guide.label.slice(1)} (${which}): ${guide.step}` };
    };
    expect(needsPersonStepParts(healthOf(rows))).toEqual([{ kind: 'heading', text: 'What to do' }, step('parked-by-edit', 'row 7'), step('failed-other', 'rows 3, 9')]);
  });

  it('no row needing a person gives no heading and no step', () => {
    expect(needsPersonStepParts(healthOf([]))).toEqual([]);
  });
});
