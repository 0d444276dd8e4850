// The generated part of docs/triage.md: one section per incident code, from the incident records the mails use.
import { INCIDENT_CODES } from '../../src/core/domain/failures/codes';
import { INCIDENTS } from '../../src/core/triage/incident-catalog';
import { CLASS_LABEL, type IncidentRecord } from '../../src/core/triage/incident-policy';

function mailedLine(record: IncidentRecord): string {
  const first =
    record.mails.kind === 'at-once'
      ? 'at once, on the run that first sees it'
      : `only once seen in at least ${record.mails.runs} runs spanning at least ${record.mails.minutes} minutes`;
  if (record.followUps === 'none') return `${first}; no reminder and no recovery mail: the incident ends silently when it clears and the daily summary lists it.`;
  if (record.followUps === 'recovery-only') return `${first}; never a reminder while it stays open; one mail when it clears.`;
  const recovery = record.holdsRowsBack ? 'the recovery mail also says what was caught up' : 'then as every incident';
  return `${first}; ${recovery}.`;
}

export function incidentCatalogue(): string {
  return INCIDENT_CODES.map((code) => {
    const record = INCIDENTS[code];
    return [
      `### \`${code}\` — ${record.title}`,
      '',
      `- **Class:** ${CLASS_LABEL[record.class]}`,
      `- **What happened:** ${record.whatHappened}`,
      `- **Next step:** ${record.nextStep}`,
      `- **Raised by:** ${record.raisedBy}`,
      `- **Mailed:** ${mailedLine(record)}`,
    ].join('\n');
  }).join('\n\n');
}

export function triageBlocks(): Record<string, string> {
  return { 'incident-catalogue': incidentCatalogue() };
}
