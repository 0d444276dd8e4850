// Without TYPEFORM_TOKEN, every place staff look says plainly that missed deliveries cannot be recovered, and how to fix it.
import { describe, expect, it } from 'vitest';
import { MISSED_DELIVERIES_UNRECOVERABLE } from '../../../../src/core/domain/typeform/missed-deliveries';
import { judgeMissedWebhookRecovery } from '../../../../src/core/self-test/service-checks';
import { healthDialogHtml } from '../../../../src/core/triage/health-view';
import { planDailySummary } from '../../../../src/core/triage/daily-summary';
import { computeHealth } from '../../../../src/core/triage/health';
import { healthReport } from '../../../../src/core/triage/health-json';
import { testSettings } from '../../triage/fakes';
import { T0 } from '../../fakes/rows';

const health = computeHealth([], T0);
const summary = (props: Record<string, string>) =>
  planDailySummary({ dateKey: '2025-06-01', lastSentDateKey: '', health, incidents: [], history: [], now: T0, settings: testSettings({ DAILY_SUMMARY: 'true', ...props }), remainingMailQuota: 100 });

describe('missed deliveries without TYPEFORM_TOKEN', () => {
  it('the statement says they cannot be recovered and names the token and its scopes', () => {
    expect(MISSED_DELIVERIES_UNRECOVERABLE).toContain('cannot be recovered');
    expect(MISSED_DELIVERIES_UNRECOVERABLE).toContain('TYPEFORM_TOKEN');
    expect(MISSED_DELIVERIES_UNRECOVERABLE).toContain('responses:read, forms:read and webhooks:read');
  });

  it('doGet\'s health JSON carries it only when the token is not set', () => {
    expect(healthReport(health, [], T0, { typeformTokenSet: false }).missedDeliveries).toBe(MISSED_DELIVERIES_UNRECOVERABLE);
    expect(healthReport(health, [], T0, { typeformTokenSet: true })).not.toHaveProperty('missedDeliveries');
  });

  it('the Queue health dialog shows it only when the token is not set', () => {
    expect(healthDialogHtml(health, [], T0, { paused: false, typeformTokenSet: false })).toContain('cannot be recovered');
    expect(healthDialogHtml(health, [], T0, { paused: false, typeformTokenSet: true })).not.toContain('cannot be recovered');
  });

  it('the daily summary says it only when the token is not set', () => {
    expect(summary({})?.body).toContain('cannot be recovered');
    expect(summary({ TYPEFORM_TOKEN: 'tfp_x' })?.body).not.toContain('cannot be recovered');
  });

  it('the Self-test warns with it', () => {
    expect(judgeMissedWebhookRecovery(false)).toMatchObject({ verdict: 'warn', advice: expect.stringContaining('cannot be recovered') });
  });
});
