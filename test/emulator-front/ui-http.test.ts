// What staff see, over HTTP: POST /api/run answers with `ui` (each Ui shown, as text) and takes the prompts' `answers`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GasHost } from '../../emulator/host.mjs';
import { startServer } from '../../emulator/server.mjs';

const UI = new URL('../emulator/scripts/ui', import.meta.url).pathname;
const post = async (url: string, body: unknown = {}): Promise<any> => {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  return { httpStatus: res.status, ...((await res.json()) as object) };
};

describe('POST /api/run shows the Ui', () => {
  let host: any;
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    host = new GasHost({ bundleDir: UI, dataDir: null });
    server = await startServer({ host, port: 0 });
  });
  afterAll(async () => { await server?.close(); await host?.dispose(); });

  // Ui.alert returns the Button clicked, Ui.prompt a PromptResponse (https://developers.google.com/apps-script/reference/base/ui).
  it('answers with every alert, prompt, toast, dialog and sidebar, using the given answers', async () => {
    const run = await post(`${server.url}/api/run/everything`, { user: 'ana@example.com', answers: ['YES', 'LOG_LEVEL=debug'] });
    expect(run).toMatchObject({ httpStatus: 200, ok: true, value: { sure: 'YES', button: 'OK', text: 'LOG_LEVEL=debug' } });
    expect(run.ui.map((u: any) => [u.kind, u.title])).toEqual([['alert', 'Process now'], ['prompt', 'Set a Script Property'],
      ['toast', 'formqueue'], ['modal', 'formqueue: queue health'], ['sidebar', 'formqueue help'], ['alert', '']]);
    expect(run.ui[1].answer).toEqual({ button: 'OK', text: 'LOG_LEVEL=debug' });
    expect(run.ui[3].text).toContain('3 rows waiting');
  });

  it('refuses answers that are not an array', async () => {
    const run = await post(`${server.url}/api/run/everything`, { answers: 'YES' });
    expect(run).toMatchObject({ httpStatus: 400, error: expect.stringMatching(/"answers" must be an array/) });
  });
});
