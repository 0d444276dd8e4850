// Self-test: runs every probe, judges it in core, writes one Log line per check and returns the report.
import { judgeIdentity, judgeMailQuota, judgePlainText, judgeTextFinder, judgeTriggers } from '../core/self-test/checks';
import { judgeGemini, judgeMissedWebhookRecovery, judgeTypeform, judgeWebApp } from '../core/self-test/service-checks';
import type { CheckResult } from '../core/self-test/check-result';
import { selfTestLogEntries, selfTestReport } from '../core/self-test/report';
import { probeGemini, probeIdentity, probeMailQuota, probeSheets, probeTriggers, probeTypeform, probeWebApp } from './self-test-probes';
import type { Services } from './services';

export function runSelfTest(services: Services): string {
  const [spreadsheet, settings, now] = [services.spreadsheet(), services.settings(), services.clock.now()];
  const sheets = probeSheets(spreadsheet, now);
  const identity = judgeIdentity(probeIdentity(settings));
  const results: CheckResult[] = [
    judgePlainText(sheets.plainText),
    judgeTextFinder(sheets.textFinder),
    identity,
    judgeTriggers(probeTriggers(), identity),
    judgeMailQuota(probeMailQuota()),
    judgeGemini(probeGemini(settings)),
    judgeTypeform(probeTypeform(settings)),
    judgeMissedWebhookRecovery(settings.typeformToken !== ''),
    judgeWebApp(probeWebApp(settings)),
  ];
  const report = selfTestReport(results, now);
  try {
    services.audit().append(selfTestLogEntries(results, services.user() || 'unknown', now));
  } catch (error) {
    return `${report}\n\n(The Log sheet could not be written: ${String((error as Error)?.message ?? error)}; run Set up / repair.)`;
  }
  return report;
}
