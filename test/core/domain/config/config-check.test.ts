// Config cells judged one by one: yes/no columns, addresses, and model ids — one, or a list in order of preference.
import { describe, expect, it } from 'vitest';
import { configCellProblem, readYesNo, rowProblems } from '../../../../src/core/domain/config/config-check';

describe('configCellProblem', () => {
  it.each<[string, unknown, string | null]>([
    ['model', '', null],
    ['model', 'gemini-2.5-flash', null],
    ['model', 'models/gemini-3.5-flash-lite', null],
    ['model', 'gemini-3.5-flash, gemini-2.5-flash', null],
    ['model', 'gemini-3.5-flash,, gemma-3-27b-it', null],
    ['model', 'gpt-4o', 'model "gpt-4o" is not a Gemini model id (like gemini-2.5-flash; several are separated by commas); leave it empty for GEMINI_MODEL'],
    ['model', 'gemini-3.5-flash, gpt-4o', 'model "gpt-4o" is not a Gemini model id (like gemini-2.5-flash; several are separated by commas); leave it empty for GEMINI_MODEL'],
    ['enabled', 'yes please', 'enabled "yes please" is neither yes nor no: tick the checkbox for yes, leave it empty for no'],
    ['enabled', true, null],
  ])('%s %j → %j', (column, value, problem) => {
    expect(configCellProblem(column, value)).toBe(problem);
  });

  it('reads yes and no the safe way: anything else is neither', () => {
    expect([readYesNo(true), readYesNo('no'), readYesNo(''), readYesNo('maybe')]).toEqual([true, false, false, null]);
  });
});

describe('configCellProblem: send windows', () => {
  it.each<[string, unknown, string | null]>([
    ['send_hours', '', null],
    ['send_hours', '08:00-20:00', null],
    ['send_hours', '9 to 5', 'send_hours "9 to 5" is not a window: write the hours replies may go out as HH:MM-HH:MM (e.g. 08:00-20:00), or leave it empty for any time'],
    ['time_zone', '', null],
    ['time_zone', 'Europe/Berlin', null],
    ['Time_Zone ', 'America/New_York', null],
    ['time_zone', 'Mars/Olympus_Mons', 'time_zone "Mars/Olympus_Mons" is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script\'s time zone'],
    ['time_zone', '+02:00', 'time_zone "+02:00" is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script\'s time zone'],
  ])('%s %j → %j', (column, value, problem) => {
    expect(configCellProblem(column, value)).toBe(problem);
  });
});

describe('readYesNo', () => {
  it.each<[unknown, boolean | null]>([
    [null, false],
    [undefined, false],
    [' YES ', true],
    ['✓', true],
    [0, false],
    ['Off', false],
    ['null', null],
    ['2', null],
  ])('%j reads as %j', (value, reading) => {
    expect(readYesNo(value)).toBe(reading);
  });
});

const NEITHER = 'is neither yes nor no: tick the checkbox for yes, leave it empty for no';
const NOT_ADDRESS = 'is not an email address; write address(es) separated by commas, or leave it empty';

describe('configCellProblem: headers, empty cells and addresses', () => {
  it.each<[string, unknown, string | null]>([
    [' Enabled ', ' yes please ', `enabled "yes please" ${NEITHER}`],
    ['ALLOW_PHONE_NUMBERS', 'maybe', `allow_phone_numbers "maybe" ${NEITHER}`],
    ['reply_to', null, null],
    ['bcc', undefined, null],
    ['reply_to', ' a@x.yz, b@x.yz; c@x.yz  d@x.yz ', null],
    ['Reply_To', 'desk@x.yz nope,, also-not', `reply_to "nope, also-not" ${NOT_ADDRESS}`],
    ['bcc', 'archive@x.yz; archive', `bcc "archive" ${NOT_ADDRESS}`],
    ['notes', '{{ anything', null],
    ['sender_name', 'not-an-address', null],
  ])('%j %j → %j', (column, value, problem) => {
    expect(configCellProblem(column, value)).toBe(problem);
  });
});

const NOT_CLOSED = 'has a placeholder that is not closed: write each one as {{name}}';
const LATE = 'which only exists once the reply is written; use it in subject or body instead';

describe('configCellProblem: placeholders', () => {
  it.each<[string, unknown, string | null]>([
    ['prompt', 'Plain text, no placeholder', null],
    ['prompt', 'Hello {{name}}, about {{ answers }}', null],
    ['prompt', 'Hello {{name', `prompt ${NOT_CLOSED}`],
    ['subject', 'Re: name}}', `subject ${NOT_CLOSED}`],
    ['body', '{{result}} and {{mail_ref', `body ${NOT_CLOSED}`],
    ['prompt', 'Reply to {{ result }}', `prompt uses {{result}}, ${LATE}`],
    ['prompt', '{{mail_ref}} {{answers}} {{result}} {{mail_ref}}', `prompt uses {{mail_ref}}, {{result}}, ${LATE}`],
    ['subject', 'Our reply ({{mail_ref}})', null],
    ['body', '{{result}}\n\nReply to this email.', null],
  ])('%s %j → %j', (column, value, problem) => {
    expect(configCellProblem(column, value)).toBe(problem);
  });
});

describe('rowProblems', () => {
  it('names each yes/no that is neither and each address that is not one, in column order, under the form id; models and placeholders wait until used', () => {
    const cells = {
      bcc: 'nope',
      reply_to: 'desk',
      allow_phone_numbers: 'perhaps',
      approval_required: 'yes',
      enabled: 'sure',
      model: 'gpt-4o',
      prompt: '{{result',
    };
    expect(rowProblems('F1', cells)).toEqual([
      `Config for form "F1": enabled "sure" ${NEITHER}`,
      `Config for form "F1": allow_phone_numbers "perhaps" ${NEITHER}`,
      `Config for form "F1": reply_to "desk" ${NOT_ADDRESS}`,
      `Config for form "F1": bcc "nope" ${NOT_ADDRESS}`,
    ]);
  });

  it('a row whose cells read well, or that lacks the columns, has no problems', () => {
    expect(rowProblems('F1', { enabled: true, approval_required: '', allow_phone_numbers: null, reply_to: 'a@x.yz', bcc: undefined })).toEqual([]);
    expect(rowProblems('F1', {})).toEqual([]);
  });
});
