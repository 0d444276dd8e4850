// docs/triage.md states the throttle and recovery numbers the code uses; its catalogue is generated (test/scripts/docs.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INCIDENT_CODES } from '../../../src/core/domain/failures/codes';
import { INCIDENTS } from '../../../src/core/triage/incident-catalog';
import { OUTAGE_PERSIST_MINUTES, OUTAGE_PERSIST_RUNS, RATE_LIMIT_PERSIST_MINUTES, RATE_LIMIT_PERSIST_RUNS, RECOVERY_QUIET_MINUTES } from '../../../src/core/triage/incident-policy';
import { readSettings } from '../../../src/core/domain/config/settings';

const doc = readFileSync(new URL('../../../docs/triage.md', import.meta.url), 'utf8');

describe('docs/triage.md against the incident records', () => {
  it.each(INCIDENT_CODES)('%s has its section, headed by the title the mails use', (code) => {
    expect(doc).toContain(`### \`${code}\` — ${INCIDENTS[code].title}\n`);
  });

  it('states the throttle and recovery numbers the code uses', () => {
    const reminderDefault = readSettings({}).settings.triageReminderMinutes;
    expect(doc).toContain(`\`TRIAGE_REMINDER_MINUTES\` (Script Property, default **${reminderDefault}**, allowed 5 to 10,080)`);
    expect(doc).toContain(`**${RECOVERY_QUIET_MINUTES} quiet minutes** (\`RECOVERY_QUIET_MINUTES\`)`);
    expect(doc).toContain(`at least **${RATE_LIMIT_PERSIST_RUNS} runs** spanning at least **${RATE_LIMIT_PERSIST_MINUTES} minutes**`);
  });

  it('only the rate limit, a Gemini outage, a failing Sent check and a failing bounce check wait until they persist; every other code is mailed at once', () => {
    const persistent = INCIDENT_CODES.filter((code) => INCIDENTS[code].mails.kind !== 'at-once');
    expect(persistent.sort()).toEqual(['BOUNCE_CHECK_FAILED', 'GEMINI_RATE_LIMITED', 'GEMINI_UNAVAILABLE', 'SENT_CHECK_FAILED']);
    expect(INCIDENTS.GEMINI_UNAVAILABLE.mails).toEqual({ kind: 'once-persistent', runs: OUTAGE_PERSIST_RUNS, minutes: OUTAGE_PERSIST_MINUTES });
    expect(INCIDENTS.GEMINI_RATE_LIMITED.mails).toEqual({ kind: 'once-persistent', runs: RATE_LIMIT_PERSIST_RUNS, minutes: RATE_LIMIT_PERSIST_MINUTES });
  });
});
