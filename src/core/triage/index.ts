// The triage module's public surface, for the entry points (processQueue, doPost, doGet) to wire.
export { IncidentBook, incidentKey, INCIDENT_KEY_PREFIX, isNotifiable } from './incidents';
export type { Incident, IncidentBookOptions, IncidentHistoryEntry, MailKind } from './incidents';
export { computeHealth, healthWhenUnreadable, healthSnapshotToJson, healthSnapshotFromJson, HEALTH_SNAPSHOT_KEY, rowLink } from './health';
export type { QueueHealth, UserImpact, HealthExtras } from './health';
export { healthReport } from './health-json';
export type { HealthReport } from './health-json';
export { planTriageMails, dueMailKind, knownSecretsOf, nextTriageMailAt } from './triage-mail';
export type { PlannedTriageMail, TriagePlan, TriageContext } from './triage-mail';
export { planDailySummary } from './daily-summary';
export type { DailySummaryInput } from './daily-summary';
export { INCIDENTS, CLASS_LABEL, RECOVERY_QUIET_MINUTES, holdsRowsBack } from './incident-catalog';
export type { IncidentClass, IncidentRecord } from './incident-catalog';
