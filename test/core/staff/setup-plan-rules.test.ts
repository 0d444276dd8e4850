// Set up's decisions case by case: header repair, protection blocks, trigger ownership, Script Properties and the Config `*` row, exactly.
import { describe, expect, it } from 'vitest';
import {
  columnBlocks, defaultConfigRow, hasDefaultConfigRow, isOwnColourFormula, planProperties, repairHeader, triggerOwnership,
} from '../../../src/core/staff/setup-plan';

describe('repairHeader', () => {
  it.each<[string, unknown[], string[], ReturnType<typeof repairHeader>]>([
    ['a blank row 1 gets the whole header', [], ['a', 'b'], { kind: 'write', startColumn: 1, headers: ['a', 'b'] }],
    ['blank cells only: the whole header from column 1', ['', null, ' '], ['a', 'b'], { kind: 'write', startColumn: 1, headers: ['a', 'b'] }],
    ['names are matched trimmed; missing ones go right of the last written cell', [' a ', 'staff notes', null, ' '], ['a', 'b'], { kind: 'write', startColumn: 3, headers: ['b'] }],
    ['nothing missing', ['b', 'a'], ['a', 'b'], { kind: 'ok' }],
  ])('%s', (_, existing, wanted, expected) => {
    expect(repairHeader(existing, wanted)).toEqual(expected);
  });
});

describe('columnBlocks', () => {
  it('finds each name, leaves out names not in the header, and merges neighbours in column order', () => {
    expect(columnBlocks(['a', 'b', 'c', 'd', 'e'], ['e', 'x', 'a', 'b', 'd'])).toEqual([{ startColumn: 1, width: 2 }, { startColumn: 4, width: 2 }]);
  });
});

describe('isOwnColourFormula', () => {
  it.each([['  =$C2="PENDING" ', true], ['=$C2="PENDING"', true], ['=$C2="LATER"', false], ['=$C3="PENDING"', false]])('%j: %s', (formula, own) => {
    expect(isOwnColourFormula(formula)).toBe(own);
  });
});

describe('triggerOwnership', () => {
  it.each<[string, string | undefined, string, ReturnType<typeof triggerOwnership>]>([
    ['the first Set up records its account, trimmed', undefined, ' me@example.org ', { mayInstall: true, record: 'me@example.org' }],
    ['a blank record and an unknown runner: install, record nothing', '  ', '', { mayInstall: true }],
    ['the owner again, in other letter case and padded', ' Owner@example.org ', ' owner@EXAMPLE.org ', { mayInstall: true }],
    ['someone unknown, while an owner is recorded', ' owner@example.org ', '', {
      mayInstall: false,
      line: 'Triggers: not touched. They belong to owner@example.org, who set formqueue up and deployed it; you are an unknown account. '
        + 'Google lists only your own triggers to you, so a repair by you would add a second pair running as you. '
        + 'Ask owner@example.org to run Set up / repair (sheets and Script Properties were repaired as usual).',
    }],
  ])('%s', (_, recorded, current, expected) => {
    expect(triggerOwnership(recorded, current)).toEqual(expected);
  });
});

describe('planProperties', () => {
  const STRONG = 'Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca';
  const base = { GEMINI_API_KEY: 'AIzaSyB-1234567890abcdefghijklmnopqrstu', STAFF_EMAILS: 'a@example.org' };
  const tokens = () => {
    let n = 0;
    return () => `Tk${++n}-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca`;
  };
  const webhookNew = 'WEBHOOK_TOKEN was not set: a new long random token was generated and stored. Read it in Project Settings → '
    + 'Script Properties and add it to the webhook URL in Typeform as ?token=… (it is not shown here, so it stays out of screenshots).';
  const healthNew = 'HEALTH_TOKEN was not set: a new random token was generated for the health check (GET the web app URL with '
    + '?token=HEALTH_TOKEN); it is separate from the webhook token, so an uptime checker never holds that one.';
  const missing = (key: string, why: string) => `MISSING: Script Property ${key} is not set (${why}). Set it in the Apps Script editor: Project Settings → Script Properties → Add script property.`;

  it('a token is judged without the spaces around it: 31 characters padded to 33 is still too short', () => {
    const padded = ` ${STRONG.slice(1)} `;
    const plan = planProperties({ ...base, WEBHOOK_TOKEN: padded, HEALTH_TOKEN: STRONG, SPREADSHEET_ID: 'SHEET1' }, 'SHEET1', tokens());
    expect(plan.set).toEqual({ WEBHOOK_TOKEN: 'Tk1-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca' });
    expect(plan.lines[0]).toMatch(/^WEBHOOK_TOKEN is 31 characters long; it must be at least 32 random characters: it was replaced/);
  });

  it.each<[string, Record<string, string>, string, ReturnType<typeof planProperties>]>([
    ['nothing set, inside the spreadsheet: tokens generated, the spreadsheet named, the rest missing', {}, 'SHEET1', {
      set: { WEBHOOK_TOKEN: 'Tk1-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca', SPREADSHEET_ID: 'SHEET1', HEALTH_TOKEN: 'Tk2-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca' },
      lines: [
        webhookNew,
        missing('GEMINI_API_KEY', 'the Gemini API key, from Google AI Studio'),
        missing('STAFF_EMAILS', 'comma-separated addresses that get triage mail'),
        'SPREADSHEET_ID was not set: set to this spreadsheet (SHEET1).',
        healthNew,
      ],
    }],
    ['outside the spreadsheet, SPREADSHEET_ID is missing', { ...base }, '', {
      set: { WEBHOOK_TOKEN: 'Tk1-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca', HEALTH_TOKEN: 'Tk2-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca' },
      lines: [webhookNew, missing('SPREADSHEET_ID', 'the id of the formqueue spreadsheet, from its URL'), healthNew],
    }],
    ['weak tokens are replaced, each with its own advice; another spreadsheet is noted, trimmed', { ...base, WEBHOOK_TOKEN: 'abc', HEALTH_TOKEN: 'def', SPREADSHEET_ID: ' OTHER ' }, 'SHEET1', {
      set: { WEBHOOK_TOKEN: 'Tk1-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca', HEALTH_TOKEN: 'Tk2-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca' },
      lines: [
        'WEBHOOK_TOKEN is 3 characters long; it must be at least 32 random characters: it was replaced by a new random token. Read it in Project Settings → Script Properties and '
          + 'put it in the Typeform webhook URL as ?token=… (deliveries with the old one are refused and kept in Rejected).',
        'HEALTH_TOKEN is 3 characters long; it must be at least 32 random characters: it was replaced by a new random token. Read it in Project Settings → Script Properties and '
          + 'give it to the uptime checker.',
        'NOTE: SPREADSHEET_ID names another spreadsheet (OTHER), not this one: the web app and triggers use that one.',
      ],
    }],
    ['strong tokens and this spreadsheet, each padded with spaces: nothing to do', { ...base, WEBHOOK_TOKEN: ` ${STRONG} `, HEALTH_TOKEN: ` ${STRONG}x `, SPREADSHEET_ID: ' SHEET1 ' }, 'SHEET1', { set: {}, lines: [] }],
    ['a blank HEALTH_TOKEN is not set; outside the spreadsheet another id is not "another"', { ...base, WEBHOOK_TOKEN: STRONG, HEALTH_TOKEN: '  ', SPREADSHEET_ID: 'X' }, '', {
      set: { HEALTH_TOKEN: 'Tk1-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca' }, lines: [healthNew],
    }],
  ])('%s', (_, props, active, expected) => {
    expect(planProperties(props, active, tokens())).toEqual(expected);
  });
});

describe('the Config sheet\'s `*` row', () => {
  it.each<[string, unknown[][], boolean]>([
    ['an empty sheet', [], false],
    ['a `*` row, header and cell padded, header in other case', [[' Form_ID ', 'enabled'], [' * ', 'TRUE']], true],
    ['only other forms', [['form_id'], ['abc']], false],
    ['no form_id column', [['enabled'], ['*']], false],
  ])('hasDefaultConfigRow: %s', (_, values, has) => {
    expect(hasDefaultConfigRow(values)).toBe(has);
  });

  it('defaultConfigRow lays the defaults along the header, trimmed and in any case; unknown columns stay empty', () => {
    expect(defaultConfigRow([' Form_ID ', 'enabled', ' Approval_Required ', 'extra', 'subject'])).toEqual(['*', 'TRUE', 'FALSE', '', 'Our reply to your submission ({{mail_ref}})']);
  });
});
