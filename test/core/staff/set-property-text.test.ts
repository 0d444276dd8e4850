// "Set a Script Property…" in full: each answer staff read, exactly, and the writes behind it.
import { describe, expect, it } from 'vitest';
import { looksLikeSecretValue, planPropertyChange, type PropertyChange } from '../../../src/core/staff/set-property';

const OLD = 'Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca';
const NEW = 'Nw5-8rT2kYp6Vb1Xq9Lm3Zs7Hd4Gc0Fa';
const API_KEY = 'AIzaSyB-1234567890abcdefghijklmnopqrstu';
const HIDDEN = '(hidden: it looks like a secret)';
const REPLACED = 'WEBHOOK_TOKEN replaced (hidden). The old token is in WEBHOOK_TOKEN_PREVIOUS and still accepted: put the new one in '
  + 'the Typeform webhook URL, check a delivery arrives, then remove WEBHOOK_TOKEN_PREVIOUS (type WEBHOOK_TOKEN_PREVIOUS=).';
const REPLACE = 'Replace WEBHOOK_TOKEN? The current token moves to WEBHOOK_TOKEN_PREVIOUS and is still accepted, so Typeform keeps '
  + 'delivering until you put the new token in its webhook URL (?token=…); then remove WEBHOOK_TOKEN_PREVIOUS here.';

describe('looksLikeSecretValue', () => {
  it.each([['', false], ['desk@example.org', false], [API_KEY, true]])('%j: %s', (value, secret) => {
    expect(looksLikeSecretValue(value)).toBe(secret);
  });
});

describe('planPropertyChange, word for word', () => {
  it.each<[string, string, Record<string, string>, PropertyChange]>([
    ['a refusal quoting a secret shows it hidden, spaces around it trimmed', `MAX_ATTEMPTS= ${API_KEY} `, {}, {
      kind: 'refused', message: `Script Property MAX_ATTEMPTS must be a whole number from 1 to 20 (it is "${HIDDEN}").`,
    }],
    ['text without "=" gets the help, readable (not redacted)', 'hello', {}, {
      kind: 'refused', message: 'Type NAME=VALUE, for example STAFF_EMAILS=desk@example.com (an empty value removes the property).',
    }],
    ['a secret-looking value under an ordinary key: asked first as no model id, and shown hidden in the question and the answer', `GEMINI_MODEL=${API_KEY}`, {}, {
      kind: 'confirm',
      question: `${HIDDEN} does not look like a Gemini model id (gemini-… or gemma-…, for example gemini-3.5-flash; several are separated by commas). ` +
        'Saved as it is, no reply can be written until it is corrected (staff get a "Gemini model not found" mail). Save it anyway?',
      writes: { set: { GEMINI_MODEL: API_KEY }, remove: [] },
      done: `GEMINI_MODEL is set to ${HIDDEN}. It does not look right: correct it here if replies fail.`,
    }],
    ['a model list that looks right is set without a question', 'GEMINI_MODEL=gemini-3.5-flash, gemma-3-27b-it', {}, {
      kind: 'apply', writes: { set: { GEMINI_MODEL: 'gemini-3.5-flash, gemma-3-27b-it' }, remove: [] }, done: 'GEMINI_MODEL is set to gemini-3.5-flash, gemma-3-27b-it.',
    }],
    ['a mistyped model in a list is named in the question', 'GEMINI_MODEL=gemini-3.5-flash, Gemini 2.5 Pro', {}, {
      kind: 'confirm',
      question: '"Gemini 2.5 Pro" does not look like a Gemini model id (gemini-… or gemma-…, for example gemini-3.5-flash; several are separated by commas). ' +
        'Saved as it is, no reply can be written until it is corrected (staff get a "Gemini model not found" mail). Save it anyway?',
      writes: { set: { GEMINI_MODEL: 'gemini-3.5-flash, Gemini 2.5 Pro' }, remove: [] },
      done: 'GEMINI_MODEL is set to gemini-3.5-flash, Gemini 2.5 Pro. It does not look right: correct it here if replies fail.',
    }],
    ['an API key of the right shape is set, hidden, saying how to try it now', `GEMINI_API_KEY=${API_KEY}`, {}, {
      kind: 'apply', writes: { set: { GEMINI_API_KEY: API_KEY }, remove: [] },
      done: 'GEMINI_API_KEY is set to (hidden).',
    }],
    ['an API key cut short is asked about by its length, never quoted', `GEMINI_API_KEY=${API_KEY.slice(0, 30)}`, {}, {
      kind: 'confirm',
      question: 'That does not look like a Gemini API key: Google AI Studio\'s keys start with "AIza" and are 39 letters, digits, - or _; this one starts with "AIza" but ' +
        'is 30 characters. Saved as it is, no reply can be written (staff get a "Gemini API key invalid" mail). Save it anyway?',
      writes: { set: { GEMINI_API_KEY: API_KEY.slice(0, 30) }, remove: [] },
      done: 'GEMINI_API_KEY is set to (hidden). It does not look right: correct it here if replies fail.',
    }],
    ['an API key pasted with its quotes says so', `GEMINI_API_KEY="${API_KEY}"`, {}, {
      kind: 'confirm',
      question: 'That does not look like a Gemini API key: Google AI Studio\'s keys start with "AIza" and are 39 letters, digits, - or _; this one does not start with "AIza", and ' +
        'is 41 characters with spaces or quotes in it. Saved as it is, no reply can be written (staff get a "Gemini API key invalid" mail). Save it anyway?',
      writes: { set: { GEMINI_API_KEY: `"${API_KEY}"` }, remove: [] },
      done: 'GEMINI_API_KEY is set to (hidden). It does not look right: correct it here if replies fail.',
    }],
    ['removing the API key asks nothing', 'GEMINI_API_KEY=', {}, { kind: 'apply', writes: { set: {}, remove: ['GEMINI_API_KEY'] }, done: 'GEMINI_API_KEY removed.' }],
    ['an empty value removes the property', 'STAFF_EMAILS=', {}, { kind: 'apply', writes: { set: {}, remove: ['STAFF_EMAILS'] }, done: 'STAFF_EMAILS removed.' }],
    ['another key while a webhook token exists asks nothing', 'STAFF_EMAILS=a@example.org', { WEBHOOK_TOKEN: OLD }, {
      kind: 'apply', writes: { set: { STAFF_EMAILS: 'a@example.org' }, remove: [] }, done: 'STAFF_EMAILS is set to a@example.org.',
    }],
    ['the same webhook token again (the stored one padded) asks nothing', `WEBHOOK_TOKEN=${OLD}`, { WEBHOOK_TOKEN: ` ${OLD} ` }, {
      kind: 'apply', writes: { set: { WEBHOOK_TOKEN: OLD }, remove: [] }, done: 'WEBHOOK_TOKEN is set to (hidden).',
    }],
    ['removing the webhook token asks first', 'WEBHOOK_TOKEN=', { WEBHOOK_TOKEN: OLD }, {
      kind: 'confirm',
      question: 'Remove WEBHOOK_TOKEN? Every Typeform delivery is then refused (kept in Rejected) until a token is set again; Set up / repair generates a new one.',
      writes: { set: {}, remove: ['WEBHOOK_TOKEN'] },
      done: 'WEBHOOK_TOKEN removed.',
    }],
    ['replacing it keeps the old one, trimmed, as the previous token; a blank previous one is not "dropped"', `WEBHOOK_TOKEN=${NEW}`, { WEBHOOK_TOKEN: ` ${OLD} `, WEBHOOK_TOKEN_PREVIOUS: '  ' }, {
      kind: 'confirm', question: REPLACE, writes: { set: { WEBHOOK_TOKEN: NEW, WEBHOOK_TOKEN_PREVIOUS: OLD }, remove: [] }, done: REPLACED,
    }],
    ['replacing it with no previous token says nothing of one', `WEBHOOK_TOKEN=${NEW}`, { WEBHOOK_TOKEN: OLD }, {
      kind: 'confirm', question: REPLACE, writes: { set: { WEBHOOK_TOKEN: NEW, WEBHOOK_TOKEN_PREVIOUS: OLD }, remove: [] }, done: REPLACED,
    }],
    ['replacing it drops a previous token there was', `WEBHOOK_TOKEN=${NEW}`, { WEBHOOK_TOKEN: OLD, WEBHOOK_TOKEN_PREVIOUS: 'Pq1-older-token-0000000000000000Zz' }, {
      kind: 'confirm', question: `${REPLACE} The token now in WEBHOOK_TOKEN_PREVIOUS is dropped.`,
      writes: { set: { WEBHOOK_TOKEN: NEW, WEBHOOK_TOKEN_PREVIOUS: OLD }, remove: [] }, done: REPLACED,
    }],
  ])('%s', (_, text, current, expected) => {
    expect(planPropertyChange(text, current)).toEqual(expected);
  });
});
