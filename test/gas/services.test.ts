// The composition root: each port built once per execution and only when asked, so an idle run pays for nothing it does not use.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServices } from '../../src/gas/services';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { FakeSheet, FakeSpreadsheet } from './fake-sheets';

function stubProperties(values: Record<string, string>) {
  const calls = { getScriptProperties: 0, getProperties: 0 };
  vi.stubGlobal('PropertiesService', {
    getScriptProperties: () => {
      calls.getScriptProperties++;
      return { getProperties: () => (calls.getProperties++, { ...values }), getProperty: (key: string) => values[key] ?? null };
    },
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('createServices', () => {
  it('builds nothing until a port is asked for', () => {
    const calls = stubProperties({});
    const opened = vi.fn();
    createServices({ spreadsheet: opened });
    expect(calls).toEqual({ getScriptProperties: 0, getProperties: 0 });
    expect(opened).not.toHaveBeenCalled();
  });

  it('reads Script Properties once for the snapshot, the settings and every later ask', () => {
    const calls = stubProperties({ SPREADSHEET_ID: 'sheet-1' });
    const services = createServices();
    expect(services.settings().spreadsheetId).toBe('sheet-1');
    expect(services.snapshot()).toBe(services.snapshot());
    expect(services.props()).toBe(services.props());
    expect(calls).toEqual({ getScriptProperties: 1, getProperties: 1 });
  });

  it('opens the spreadsheet once, and the Queue store on it once, whoever asks', () => {
    stubProperties({});
    const book = new FakeSpreadsheet([new FakeSheet('Queue', [...QUEUE_HEADERS]), new FakeSheet('Archive', [...QUEUE_HEADERS])]);
    const open = vi.fn(() => book.asApps());
    const services = createServices({ spreadsheet: open });
    expect(services.queue()).toBe(services.queue());
    services.audit();
    services.config();
    expect(open).toHaveBeenCalledTimes(1);
  });
});
