// Set up / repair as data: sheets, headers, protections, colours, triggers, properties, the default Config row.
import { describe, expect, it } from 'vitest';
import { CONFIG_HEADERS, configFor, formConfigsFromValues } from '../../../src/core/domain/config/form-config';
import { DEFAULT_BODY, DEFAULT_PROMPT, DEFAULT_SUBJECT } from '../../../src/core/domain/mail/templates';
import { QUEUE_HEADERS } from '../../../src/core/domain/queue/queue-row';
import { SHEETS } from '../../../src/core/domain/queue/sheet-names';
import {
  SHEET_PLANS,
  columnBlocks,
  columnLetter,
  defaultConfigRow,
  hasDefaultConfigRow,
  isOwnColourFormula,
  planProperties,
  planTriggers,
  repairHeader,
  statusColourRules,
} from '../../../src/core/staff/setup-plan';
import { STATUSES } from '../../../src/core/domain/queue/statuses';

describe('setup plan', () => {
  it('names the six sheets, and every Queue column holding respondent or model text is plain text', () => {
    expect(SHEET_PLANS.map((plan) => plan.name)).toEqual(Object.values(SHEETS));
    const queue = SHEET_PLANS[0];
    for (const header of ['event_id', 'form_id', 'response_token', 'recipient', 'submission', 'payload', 'result', 'error']) {
      expect(queue.formats[header]).toBe('@');
    }
    for (const plan of SHEET_PLANS) for (const header of plan.headers) expect(plan.formats[header]).toBeDefined();
  });

  it('protects Queue system columns but leaves status, recipient and result to staff', () => {
    const queue = SHEET_PLANS[0];
    expect(queue.protectedHeaders).not.toContain('status');
    expect(queue.protectedHeaders).not.toContain('result');
    expect(queue.protectedHeaders).toContain('sent_at');
    expect(columnBlocks(QUEUE_HEADERS, queue.protectedHeaders)).toEqual([
      { startColumn: 2, width: 4 },
      { startColumn: 7, width: 5 },
      { startColumn: 13, width: 4 },
    ]);
  });

  it.each([
    [[], { kind: 'write', startColumn: 1, headers: ['a', 'b'] }],
    [['', ''], { kind: 'write', startColumn: 1, headers: ['a', 'b'] }],
    [['a', 'b'], { kind: 'ok' }],
    [['b', 'a', 'mine'], { kind: 'ok' }],
    [['a', 'mine', ''], { kind: 'write', startColumn: 3, headers: ['b'] }],
  ])('header %j → %j', (existing, repair) => {
    expect(repairHeader(existing, ['a', 'b'])).toEqual(repair);
  });

  it('column letters', () => {
    expect([1, 16, 26, 27, 52, 703].map(columnLetter)).toEqual(['A', 'P', 'Z', 'AA', 'AZ', 'AAA']);
  });

  it('one colour rule per status, recognised as ours on the next run, and staff rules are not', () => {
    const rules = statusColourRules(1);
    expect(rules).toHaveLength(STATUSES.length);
    expect(rules[0].formula).toBe('=$A2="PENDING"');
    expect(rules.every((rule) => isOwnColourFormula(rule.formula))).toBe(true);
    expect(isOwnColourFormula('=$A2="URGENT"')).toBe(false);
    expect(isOwnColourFormula('=B2>3')).toBe(false);
  });

  it.each([
    ['none yet', [], ['processQueue', 'onEditInstallable', 'reconcileTypeform', 'watchTypeformWebhook'], []],
    [
      'exactly one of each',
      [
        { id: '1', handler: 'processQueue', kind: 'clock' },
        { id: '2', handler: 'onEditInstallable', kind: 'edit' },
        { id: '7', handler: 'reconcileTypeform', kind: 'clock' },
        { id: '8', handler: 'watchTypeformWebhook', kind: 'clock' },
      ],
      [],
      [],
    ],
    [
      'duplicates, a wrong kind and a foreign trigger',
      [
        { id: '1', handler: 'processQueue', kind: 'clock' },
        { id: '2', handler: 'processQueue', kind: 'clock' },
        { id: '3', handler: 'onEditInstallable', kind: 'edit' },
        { id: '4', handler: 'onEditInstallable', kind: 'edit' },
        { id: '5', handler: 'processQueue', kind: 'edit' },
        { id: '6', handler: 'somethingElse', kind: 'clock' },
        { id: '7', handler: 'reconcileTypeform', kind: 'clock' },
        { id: '8', handler: 'watchTypeformWebhook', kind: 'clock' },
      ],
      [],
      ['2', '4', '5'],
    ],
  ] as const)('triggers: %s', (_label, existing, created, removed) => {
    const plan = planTriggers(existing);
    expect(plan.create.map((wanted) => wanted.handler)).toEqual(created);
    expect([...plan.remove].sort()).toEqual(removed);
  });

  it('properties: generates a missing token, fills SPREADSHEET_ID, names each other missing one with how to set it', () => {
    const plan = planProperties({}, 'sheet-123', () => 'f'.repeat(64));
    expect(plan.set).toEqual({ WEBHOOK_TOKEN: 'f'.repeat(64), SPREADSHEET_ID: 'sheet-123', HEALTH_TOKEN: 'f'.repeat(64) });
    const text = plan.lines.join('\n');
    expect(text).toContain('WEBHOOK_TOKEN was not set');
    expect(text).not.toContain('f'.repeat(64));
    for (const key of ['GEMINI_API_KEY', 'STAFF_EMAILS']) expect(text).toMatch(new RegExp(`MISSING: Script Property ${key} .*Project Settings`));
  });

  it('properties: nothing to do when all are set; bad knobs are reported', () => {
    const all = {
      WEBHOOK_TOKEN: 'Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca',
      HEALTH_TOKEN: 'Hq2-4bN8vKe1Yt6Wr9Xu3Mf7Lc5Zs0Pa',
      GEMINI_API_KEY: 'k',
      STAFF_EMAILS: 'a@b.c',
      SPREADSHEET_ID: 'sheet-123',
    };
    let called = false;
    const plan = planProperties(all, 'sheet-123', () => ((called = true), 'x'));
    expect(plan).toEqual({ set: {}, lines: [] });
    expect(called).toBe(false);
    expect(planProperties({ ...all, MAX_ATTEMPTS: 'lots' }, 'sheet-123', () => 'x').lines[0]).toMatch(/^PROBLEM: .*MAX_ATTEMPTS/);
    expect(planProperties(all, 'other', () => 'x').lines[0]).toMatch(/another spreadsheet/);
  });

  it('properties: a WEBHOOK_TOKEN or HEALTH_TOKEN under 32 characters is replaced by a generated one, saying why', () => {
    const all = { WEBHOOK_TOKEN: 'short-token', HEALTH_TOKEN: 'Hq2-4bN8vKe1Yt6Wr9Xu3Mf7Lc5Zs0Pa', GEMINI_API_KEY: 'k', STAFF_EMAILS: 'a@b.c', SPREADSHEET_ID: 'sheet-123' };
    const fresh = 'Nw5-8rT2kYp6Vb1Xq9Lm3Zs7Hd4Gc0Fa';
    const plan = planProperties(all, 'sheet-123', () => fresh);
    expect(plan.set).toEqual({ WEBHOOK_TOKEN: fresh });
    expect(plan.lines.join('\n')).toMatch(/WEBHOOK_TOKEN is 11 characters long; it must be at least 32 random characters: it was replaced/);
    expect(plan.lines.join('\n')).not.toMatch(/short-token|PROBLEM/);
  });

  it('the default Config row is a usable `*` row with the default templates', () => {
    const header = [...CONFIG_HEADERS, 'staff notes'];
    const values = [header, defaultConfigRow(header)];
    expect(hasDefaultConfigRow([header])).toBe(false);
    expect(hasDefaultConfigRow(values)).toBe(true);
    const config = configFor('anyForm', formConfigsFromValues(values));
    expect(config).toMatchObject({ formId: 'anyForm', enabled: true, prompt: DEFAULT_PROMPT, subject: DEFAULT_SUBJECT, body: DEFAULT_BODY, approvalRequired: false });
  });
});
