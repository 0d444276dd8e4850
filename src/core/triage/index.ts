// The triage module's public surface, for the entry points (doGet) to wire; processQueue's run uses it from src/core/queue-tick.ts.
export { IncidentBook } from './incidents';
export { computeHealth, healthWhenUnreadable } from './health';
export { healthReport } from './health-json';
