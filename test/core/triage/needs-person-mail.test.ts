// The rows needing a person as the triage mail lists them: each row's lines, the error cell shown, and one step per reason.
import { describe, expect, it } from 'vitest';
import { computeHealth, type NeedsPersonRow, type QueueHealth } from '../../../src/core/triage/health';
import { ERROR_SHOWN_CHARS, needsPersonOperatorNotes, needsPersonRowIds, needsPersonRowParts, needsPersonStepParts } from '../../../src/core/triage/needs-person-mail';
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
  it('a row without a link or status is a plain line saying so, then its reason; its event_id is for the operator footer only', () => {
    const health = healthOf([needsRow(5, '', null)]);
    expect(needsPersonRowParts(health, T0, redaction)).toEqual([
      { kind: 'line', text: '  row 5 (no status, mail_ref none yet)' },
      { kind: 'line', text: `      ${NEEDS_PERSON_GUIDE['unknown-status'].label}` },
    ]);
    expect(needsPersonRowIds(health, redaction)).toEqual(['row 5: ev-5']);
  });

  it('the operator footer gets the event_ids (redacted, cut to 80), and the Sent check switch once for several rows that need it', () => {
    const long = `ev ${'word '.repeat(20)}end`;
    const health = healthOf([needsRow(3, 'NEEDS_REVIEW', null, { eventId: long, reason: 'send-interrupted' }), needsRow(4, 'NEEDS_REVIEW', null, { eventId: '', reason: 'mail-outcome-unknown' })]);
    expect(needsPersonRowIds(health, redaction)).toEqual([`row 3: ${long.slice(0, 79)}…`]);
    expect(needsPersonOperatorNotes(health)).toEqual([NEEDS_PERSON_GUIDE['send-interrupted'].operatorNote]);
    expect(needsPersonOperatorNotes(healthOf([needsRow(3, 'FAILED', null)]))).toEqual([]);
  });

  it.each<[string, string, string]>([
    ['blanks and line breaks are one space, none at the ends', '  MAIL_PERMANENT:\n\n  Invalid   email \t', 'MAIL_PERMANENT: Invalid email'],
    ['a secret is redacted', `GEMINI_REJECTED: key ${API_KEY} refused`, 'GEMINI_REJECTED: key [redacted] refused'],
    [`exactly ${ERROR_SHOWN_CHARS} characters are shown whole`, words(ERROR_SHOWN_CHARS), words(ERROR_SHOWN_CHARS)],
    [`a longer cell is cut to ${ERROR_SHOWN_CHARS} with an ellipsis`, words(ERROR_SHOWN_CHARS + 1), `${words(ERROR_SHOWN_CHARS + 1).slice(0, ERROR_SHOWN_CHARS - 1)}…`],
  ])('the error cell: %s', (_name, error, shown) => {
    expect(errorLine(needsRow(4, 'FAILED', null, { error }))).toBe(`      ${failedLabel} · ${shown}`);
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
