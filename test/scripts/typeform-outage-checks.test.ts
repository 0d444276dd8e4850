// `npm run typeform-outage` judges its own figures (issue #25's "Done when") and owns one section of docs/reliability.md, which chaos keeps.
import { describe, expect, it } from 'vitest';
import { outageChecks, outageSection, replaceSection, sectionOf } from '../../bench/outage-checks.mjs';

/** The figures of a run that met every check: the 404 hour disabled the webhook once, mailed and mended. */
const held = {
  mode: 'fail', modeledDays: 1, submissions: 100, answeredExactlyOnce: 100, duplicateReplies: 0, lost: 0, rowsInQueue: 100,
  deliveryAttempts: 540, delivered: 0, failedAttempts: 540, droppedWhileDisabled: 14, gaveUp: 77,
  outageHours: [11.5, 12.5], webhookDisabled: 1, disabledAtHour: [11.51], detectionMinutes: [0],
  incidentFirstMails: 1, incidentReminders: 1, incidentRecoveryMails: 1, reenabled: 1, reenabledAtHour: [12.51],
  webhookEnabledAtEnd: true, recoveredRows: 6, junkPosts: 200, junkQueued: 0, wallSeconds: 50,
};
const failing = (figures: Record<string, unknown>) => outageChecks({ ...held, ...figures }).filter((check) => !check.ok).map((check) => check.says);

describe('typeform-outage checks', () => {
  it('a run that met issue #25\'s figures passes every check', () => {
    expect(failing({})).toEqual([]);
  });

  it.each([
    ['a response answered twice', { answeredExactlyOnce: 99, duplicateReplies: 1 }, /answered exactly once/],
    ['a response never answered', { answeredExactlyOnce: 99, lost: 1 }, /answered exactly once/],
    ['no disable in the 404 hour', { disabledAtHour: [3.2] }, /the 404 hour/],
    ['an incident mail 30 minutes after the disable', { detectionMinutes: [30] }, /within 15 modeled minutes/],
    ['a disable no incident mail followed', { detectionMinutes: [null] }, /within 15 modeled minutes/],
    ['no recovery mail', { incidentRecoveryMails: 0 }, /one recovery mail per disable/],
    ['two incident mails for one disable', { incidentFirstMails: 2 }, /one incident mail/],
    ['the webhook left off', { reenabled: 0, webhookEnabledAtEnd: false }, /switched back on/],
    ['a junk post queued', { junkQueued: 1 }, /flood queued nothing/],
  ])('%s fails its check', (_name, figures, says) => {
    const failed = failing(figures);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(says);
  });

  it('its section replaces the one in the document, and chaos finds it there to keep', () => {
    const section = outageSection({ command: 'npm run typeform-outage -- --days 1', commit: 'abc1234', results: [{ figures: held, checks: outageChecks(held) }], machine: ['- Node: v20'] });
    const doc = replaceSection('# Reliability\n\n## Reproduce\nnpm run chaos\n', section);
    expect(doc.startsWith('# Reliability\n\n## Reproduce\nnpm run chaos\n\n## Typeform')).toBe(true);
    expect(sectionOf(doc)).toBe(section.trimEnd());
    const again = replaceSection(`${doc}\n## After\ntext\n`, section.replace('abc1234', 'def5678'));
    expect(again).toContain('on commit def5678');
    expect(again).not.toContain('abc1234');
    expect(again).toContain('## After\ntext');
  });
});
