// What the 15-minute webhook watch costs in service calls: one Script Properties read without TYPEFORM_TOKEN, a handful with it.
import { describe, expect, it } from 'vitest';
import { LOCAL_TYPEFORM_TOKEN } from '../../emulator/offline-typeform.mjs';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

let rt: Runtime;

describe('the webhook watch\'s cost', () => {
  it('without TYPEFORM_TOKEN a watch run is one Script Properties read and says missed deliveries cannot be recovered', async () => {
    rt = await freshRuntime();
    const run = await rt.run('watchTypeformWebhook');
    expect(run.status).toBe('ok');
    expect(String(run.value)).toContain('cannot be recovered');
    expect(run.calls).toEqual({ 'Properties.getProperties': 1 });
  });

  it('with the token and a healthy webhook: the settings, Config, one Typeform request per form and one property write; no sheet write, no recovery', async () => {
    rt = await freshRuntime({ props: { TYPEFORM_TOKEN: LOCAL_TYPEFORM_TOKEN } });
    rt.host.properties.set('TYPEFORM_BASE_URL', `${rt.url}/typeform`);
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: 'Wr1tE5sy', user: 'owner@example.com' });
    expect(await rt.deliver(submission(1))).toMatchObject({ ok: true, queued: true }); // Typeform now knows the form and its webhook
    const run = await rt.run('watchTypeformWebhook');
    expect(String(run.value)).toBe('Wr1tE5sy: webhook enabled');
    expect(run.calls).toEqual({
      'Properties.getProperties': 1, // settings and the last watch's record
      'SpreadsheetApp.openById': 1, // Config: which forms to watch
      'Spreadsheet.getSheetByName': 1,
      'Sheet.getDataRange': 1,
      'Range.getValues': 1,
      'UrlFetchApp.fetch': 1, // GET /forms/{id}/webhooks
      'Properties.setProperty': 1, // the watch's record
    });
    expect(run.cellsWritten).toBe(0);
  });
});
