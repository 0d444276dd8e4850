// The grid: sheets whose rows are all used still take appends (Queue and Log), and Set up leaves no empty grid column.
import { beforeEach, describe, expect, it } from 'vitest';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

/** Fills `name` so its last row is its last grid row (a fresh sheet has 1,000), as after 999 real appends. */
function fillToGrid(rt: Runtime, name: string, make: (i: number, template: unknown[]) => unknown[]): void {
  const sheet = rt.host.ss.byName(name);
  const header = sheet.v[0];
  const template = sheet.v[1] ?? header.map(() => '');
  const rows = Array.from({ length: sheet.maxRows - 1 }, (_, i) => make(i, template));
  rt.host.loadSheet(name, header, rows);
  expect(sheet.v.length).toBe(sheet.maxRows);
}

describe('appending to a sheet whose grid is full', () => {
  let rt: Runtime;
  beforeEach(async () => {
    rt = await freshRuntime();
  });

  it('queues a delivery when Queue already uses all 1,000 rows (not spilled)', async () => {
    await rt.deliver(submission(1));
    fillToGrid(rt, 'Queue', (i, row) => ['SENT', `ev-${i}`, ...row.slice(2, 4), `tok-${i}`, ...row.slice(5)]);
    expect(await rt.deliver(submission(2))).toMatchObject({ ok: true, queued: true });
    expect(rt.queue().at(-1)?.event_id).toBe(JSON.parse(submission(2)).event_id);
  });

  it('sends a reply when the Log sheet already uses all 1,000 rows', async () => {
    fillToGrid(rt, 'Log', (i) => [new Date(), `ev-${i}`, 'PENDING', 'GENERATING', 'system', 'filler']);
    await rt.deliver(submission(3));
    const run = await rt.run('processQueue');
    expect(run.status).toBe('ok');
    expect(rt.queue()[0].status).toBe('SENT');
    expect(rt.host.outbox.filter((m: { to: string }) => m.to !== 'staff@example.com')).toHaveLength(1);
  });

  it('leaves no empty grid column after Set up (a new sheet has 26; the 10,000,000-cell limit counts them all)', async () => {
    for (const name of ['Queue', 'Config', 'Log', 'Rejected', 'Payloads', 'Archive', 'Tally']) {
      const sheet = rt.host.ss.byName(name);
      expect(sheet.maxCols, name).toBe(rt.sheet(name).header.length);
    }
    // A column staff added to Queue's right is kept by a repair.
    const queue = rt.host.ss.byName('Queue');
    rt.host.loadSheet('Queue', [...rt.sheet('Queue').header, 'notes'], []);
    expect(queue.maxCols).toBeGreaterThanOrEqual(17);
    expect((await rt.host.run('setup', [], { kind: 'menu' })).status).toBe('ok');
    expect(rt.sheet('Queue').header.at(-1)).toBe('notes');
    expect(queue.maxCols).toBe(17);
  });

  it('warns staff once the grid passes 80 % of 10,000,000 cells, with the days left at the current rate', async () => {
    await rt.deliver(submission(20));
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(rt.host.properties.get('FQ_INCIDENT_GRID_NEARLY_FULL')).toBeNull();
    // As a spreadsheet that has kept a few hundred thousand archived rows: its grid is past 8,000,000 cells.
    const archive = rt.host.ss.byName('Archive');
    archive.maxRows = 500000;
    rt.host.advanceClock(6 * 3600000);
    await rt.deliver(submission(21));
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(JSON.parse(rt.host.properties.get('FQ_INCIDENT_GRID_NEARLY_FULL')).detail).toMatch(/grid has 8,0\d\d,\d{3} of its 10,000,000 cells \(80 %\)/);
    expect(rt.host.outbox.some((m: { subject: string }) => m.subject.includes('Spreadsheet nearly full'))).toBe(true);
    // A week on, it has grown by 700,000 cells: 100,000 a day, so about 19 days are left (past 8,000,000 with Set up's sheets).
    rt.host.advanceClock(6 * 3600000);
    rt.host.properties.set('FQ_GRID_SAMPLES', JSON.stringify([[rt.host.now() - 7 * 86400000 + 3600000, rt.host.ss.gridCells() - 700000]]));
    await rt.deliver(submission(22));
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(JSON.parse(rt.host.properties.get('FQ_INCIDENT_GRID_NEARLY_FULL')).detail).toMatch(/rate of the last 7 day\(s\) \(100,\d{3} cells a day\) it is full in about 1\d day\(s\)/);
  });

  it('keeps a formula-looking answer as text after a person cleared the Queue sheet\'s formatting', async () => {
    // Format → Clear formatting: the plain-text columns Set up made are gone until the next repair.
    Object.assign(rt.host.ss.byName('Queue'), { nf: [], colFormats: {} });
    const body = submission(23, (b) => void (b.form_response.token = '=HYPERLINK("http://evil.example","x")'));
    expect(await rt.deliver(body)).toMatchObject({ queued: true });
    expect(rt.sheet('Queue').formulas.flat().every((cell) => cell === '')).toBe(true);
    expect(rt.queue()[0].response_token).toBe('=HYPERLINK("http://evil.example","x")');
  });

  it('keeps formula-looking answers as text when a burst lands them in rows a person reformatted just below the data', async () => {
    await rt.deliver(submission(30));
    // Rows 4 to 40 lose their plain-text format (a person pasted formatting there); row 3, the next one, keeps it.
    const queue = rt.host.ss.byName('Queue');
    for (let r = 4; r <= 40; r++) for (let c = 1; c <= queue.v[0].length; c++) queue.put('nf', r, c, 'General');
    const evil = (n: number) => submission(n, (b) => void (b.form_response.token = `=HYPERLINK("http://evil.example/${n}","x")`));
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => rt.deliver(evil(31 + i))));
    expect(answers.every((answer) => answer.queued === true)).toBe(true);
    expect(rt.sheet('Queue').formulas.flat().every((cell) => cell === '')).toBe(true);
    expect(rt.queue().filter((row) => String(row.response_token).startsWith('=HYPERLINK'))).toHaveLength(12);
  });
});
