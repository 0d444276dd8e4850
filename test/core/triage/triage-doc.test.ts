// docs/triage.md tells staff what each incident code means: it must say what the code does, word for word.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INCIDENT_CODES } from '../../../src/core/ports';
import { CLASS_LABEL, INCIDENT_CLASS, INCIDENT_TITLE, NEXT_STEP, RECOVERY_QUIET_MINUTES, WHAT_HAPPENED } from '../../../src/core/triage/incident-catalog';
import { RATE_LIMIT_PERSIST_MINUTES, RATE_LIMIT_PERSIST_RUNS } from '../../../src/core/triage/incident-catalog';
import { readSettings } from '../../../src/core/settings';

const doc = readFileSync(new URL('../../../docs/triage.md', import.meta.url), 'utf8');

function sectionOf(code: string): string {
  const start = doc.indexOf(`### \`${code}\``);
  expect(start, `docs/triage.md has a section for ${code}`).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n#', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('docs/triage.md against the incident catalog', () => {
  it.each(INCIDENT_CODES)('%s: title, class, what happened and next step as the mails print them', (code) => {
    const section = sectionOf(code);
    expect(section.split('\n')[0]).toBe(`### \`${code}\` — ${INCIDENT_TITLE[code]}`);
    expect(section).toContain(`- **Class:** ${CLASS_LABEL[INCIDENT_CLASS[code]]}\n`);
    expect(section).toContain(`- **What happened:** ${WHAT_HAPPENED[code]}\n`);
    expect(section).toContain(`- **Next step:** ${NEXT_STEP[code]}\n`);
    expect(section).toContain('- **Raised by:** ');
  });

  it('states the throttle and recovery numbers the code uses', () => {
    const reminderDefault = readSettings({}).settings.triageReminderMinutes;
    expect(doc).toContain(`\`TRIAGE_REMINDER_MINUTES\` (Script Property, default **${reminderDefault}**, allowed 5 to 10,080)`);
    expect(doc).toContain(`**${RECOVERY_QUIET_MINUTES} quiet minutes** (\`RECOVERY_QUIET_MINUTES\`)`);
    expect(doc).toContain(`at least **${RATE_LIMIT_PERSIST_RUNS} runs** spanning at least **${RATE_LIMIT_PERSIST_MINUTES} minutes**`);
  });
});
