// The triage module's public surface, for the entry points (processQueue, doPost, doGet) to wire.
export { IncidentBook } from './incidents';
export { computeHealth, healthWhenUnreadable } from './health';
export type { QueueHealth } from './health';
export { healthReport } from './health-json';
export { planTriageMails, knownSecretsOf, nextTriageMailAt } from './triage-mail';
export { planDailySummary } from './daily-summary';
export { holdsRowsBack } from './incident-catalog';
