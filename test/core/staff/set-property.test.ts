// "Set a Script Property…": what a typed KEY=VALUE writes, when staff are asked first, and that no secret is echoed.
import { describe, expect, it } from 'vitest';
import { planPropertyChange } from '../../../src/core/staff/set-property';

const OLD = 'Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca';
const NEW = 'Nw5-8rT2kYp6Vb1Xq9Lm3Zs7Hd4Gc0Fa';

describe('planPropertyChange', () => {
  it('replacing WEBHOOK_TOKEN asks first, then moves the old token to WEBHOOK_TOKEN_PREVIOUS', () => {
    const change = planPropertyChange(`WEBHOOK_TOKEN=${NEW}`, { WEBHOOK_TOKEN: OLD });
    expect(change.kind).toBe('confirm');
    if (change.kind !== 'confirm') return;
    expect(change.question).toMatch(/^Replace WEBHOOK_TOKEN\? The current token moves to WEBHOOK_TOKEN_PREVIOUS and is still accepted/);
    expect(change.writes).toEqual({ set: { WEBHOOK_TOKEN: NEW, WEBHOOK_TOKEN_PREVIOUS: OLD }, remove: [] });
    expect(`${change.question} ${change.done}`).not.toMatch(new RegExp(`${OLD}|${NEW}`));
  });

  it('says when a token already in WEBHOOK_TOKEN_PREVIOUS is dropped', () => {
    const change = planPropertyChange(`WEBHOOK_TOKEN=${NEW}`, { WEBHOOK_TOKEN: OLD, WEBHOOK_TOKEN_PREVIOUS: 'Pq1-older-token-0000000000000000Zz' });
    expect(change.kind === 'confirm' && change.question).toMatch(/The token now in WEBHOOK_TOKEN_PREVIOUS is dropped/);
  });

  it('removing WEBHOOK_TOKEN asks first too', () => {
    const change = planPropertyChange('WEBHOOK_TOKEN=', { WEBHOOK_TOKEN: OLD });
    expect(change).toMatchObject({ kind: 'confirm', writes: { set: {}, remove: ['WEBHOOK_TOKEN'] } });
  });

  it('the first WEBHOOK_TOKEN is set without a question', () => {
    expect(planPropertyChange(`WEBHOOK_TOKEN=${NEW}`, {})).toEqual({ kind: 'apply', writes: { set: { WEBHOOK_TOKEN: NEW }, remove: [] }, done: 'WEBHOOK_TOKEN is set to (hidden).' });
  });

  it('never echoes a value that looks like a secret, under any key', () => {
    const key = 'AIzaSyB-1234567890abcdefghijklmnopqrstu';
    for (const text of [`STAFF_EMAILS=${key}`, `MAX_ATTEMPTS=${key}`, `GEMINI_MODEL=${key}`, `GEMINI_BASE_URL=https://x.example/?key=${key}`]) {
      const change = planPropertyChange(text, {});
      const shown = change.kind === 'refused' ? change.message : change.done;
      expect(shown, text).not.toContain(key);
    }
  });

  it('shows an ordinary value back', () => {
    expect(planPropertyChange('STAFF_EMAILS=desk@example.org', {})).toMatchObject({ kind: 'apply', done: 'STAFF_EMAILS is set to desk@example.org.' });
  });
});
