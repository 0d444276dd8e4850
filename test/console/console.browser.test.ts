// The browser console in a real browser (playwright-core driving Debian's chromium) against the runtime running the
// built bundle: what a person does at the sheet, seen through the page's accessible names.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, MISSING_CHROMIUM } from '../../scripts/find-chromium.mjs';
import { STATUS_COLOURS } from '../../src/core/domain/queue/statuses';
import { runtimePerFile, type Runtime } from '../e2e/runtime';

const AXE = new URL('../../node_modules/axe-core/axe.min.js', import.meta.url).pathname;

let browser: Browser;
let page: Page;
let rt: Runtime;

async function deliverSample(name: string): Promise<void> {
  await page.getByLabel('Sample', { exact: true }).selectOption(name);
  await page.getByRole('button', { name: 'Deliver sample' }).click();
  await expect.poll(() => page.getByRole('status').filter({ hasText: name }).textContent()).toContain('"ok":true');
}

async function processNow(): Promise<string> {
  await page.getByRole('button', { name: 'Process now' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const text = await dialog.innerText();
  await dialog.getByRole('button', { name: 'OK' }).click();
  return text;
}

/** '#93c47d' → 'rgb(147, 196, 125)', as the browser reports a computed colour. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

describe('the browser the console tests need', () => {
  it('a missing Chromium fails with the command that installs it, instead of skipping', () => {
    expect(() => findChromium({ PATH: '/nonexistent' })).toThrow(MISSING_CHROMIUM);
    expect(() => findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).toThrow(/CHROMIUM_PATH is \/nonexistent\/chromium/);
  });
});

describe('console', () => {
  /** One runtime for the file, reset before each test (test/e2e/runtime.ts); each test opens its own page. */
  const freshRuntime = runtimePerFile();

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    rt = await freshRuntime();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(rt.url);
    await page.getByRole('tab', { name: 'Queue', selected: true }).waitFor();
  });

  afterEach(async () => {
    await page?.close();
  });

  it('opens on the Queue tab: a tab per sheet, the frozen header as column headers, the formqueue menu as buttons', async () => {
    for (const name of ['Queue', 'Config', 'Log', 'Rejected', 'Outbox', 'Executions', 'Health', 'Faults']) {
      await expect(page.getByRole('tab', { name }).count()).resolves.toBe(1);
    }
    await expect(page.getByRole('columnheader', { name: 'status', exact: true }).count()).resolves.toBe(1);
    await expect(page.getByRole('columnheader', { name: 'error', exact: true }).count()).resolves.toBe(1);
    for (const name of ['Process now', 'Approve selected', 'Retry selected', 'Skip selected', 'Mark selected as sent',
      'Accept rejected delivery', 'Queue health', 'Pause', 'Resume', 'Set up / repair', 'Self-test', '+1 min', '+15 min', '+1 h']) {
      await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(1);
    }
  });

  it('+15 min moves the runtime clock forward by 15 minutes and says so', async () => {
    const clock = async () => Date.parse(((await (await fetch(`${rt.url}/api/clock`)).json()) as { now: string }).now);
    const before = await clock();
    await page.getByRole('button', { name: '+15 min', exact: true }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'clock +15 min' }).textContent()).toContain('runtime time is now');
    expect((await clock()) - before).toBeGreaterThanOrEqual(15 * 60 * 1000);
  });

  it('a delivered sample turns SENT after Process now, in the sheet colour, and its mail shows as HTML, text and .eml', async () => {
    await deliverSample('essay-submission.json');
    await expect.poll(() => page.getByRole('combobox', { name: 'status of row 2' }).inputValue()).toBe('PENDING');
    expect(await processNow()).toMatch(/Process now[\s\S]*sent 1/);
    const status = page.getByRole('combobox', { name: 'status of row 2' });
    await expect.poll(() => status.inputValue()).toBe('SENT');
    // The row colour comes from the conditional-format rule Set up wrote for SENT; the cell may repaint after the
    // status select does (seen on a loaded machine), so it is polled like the status.
    const colour = () => page.locator('td[data-a1="B2"]').evaluate((td) => (globalThis as any).getComputedStyle(td).backgroundColor);
    await expect.poll(colour).toBe(rgb(STATUS_COLOURS.SENT));

    await page.getByRole('tab', { name: 'Outbox' }).click();
    const row = page.getByRole('row').filter({ hasText: 'mina.okafor@example.com' });
    await row.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('#mail-text').textContent()).toContain('Mina');
    const html = await page.frameLocator('iframe[title="Mail as HTML"]').locator('body').innerText();
    expect(html).toContain('Mina');
    await page.getByRole('button', { name: 'Close mail' }).click();
    const href = await row.getByRole('link', { name: 'Download .eml' }).getAttribute('href');
    const eml = await (await fetch(`${rt.url}${href}`)).text();
    expect(eml).toMatch(/^To: mina\.okafor@example\.com$/m);
    expect(eml).toMatch(/^Subject: /m);

    await page.getByRole('tab', { name: 'Executions' }).click();
    const run = page.getByRole('row').filter({ hasText: 'menuProcessNow' }).first();
    await run.waitFor();
    expect(await run.innerText()).toMatch(/menuProcessNow\s+api\s+staff@example\.com[\s\S]*ok[\s\S]*\d+ calls/);
  });

  it('setting a SENT row back to PENDING is a person\'s edit: the on-edit trigger puts SENT back and says why in a note', async () => {
    await deliverSample('essay-submission.json');
    await processNow();
    const status = page.getByRole('combobox', { name: 'status of row 2' });
    await expect.poll(() => status.inputValue()).toBe('SENT');
    await status.selectOption('PENDING');
    const message = page.getByRole('status').filter({ hasText: 'Queue!A2' });
    await expect.poll(() => message.textContent()).toContain('the sheet put back "SENT"');
    expect(await message.textContent()).toContain('the reply was already mailed');
    await expect.poll(() => page.locator('#cell-note').textContent()).toContain('SENT rows cannot go back to PENDING');
    await expect.poll(() => status.inputValue()).toBe('SENT');
  });

  it('a Sheets fault added from the Faults tab shows up as an open incident in Health after the next run, and ends with End', async () => {
    await processNow(); // a healthy run first: the health view reports from the last figures it read while Sheets fails
    await page.getByRole('tab', { name: 'Faults' }).click();
    await page.getByRole('button', { name: 'Sheets failing for 10 min' }).click();
    const fault = page.getByRole('row').filter({ hasText: 'Error code INTERNAL' });
    await fault.waitFor();
    await page.getByRole('tab', { name: 'Queue' }).click();
    expect(await processNow()).toMatch(/incident/);
    await page.getByRole('tab', { name: 'Health' }).click();
    await expect.poll(() => page.locator('#incidents').innerText()).toContain('SHEETS_UNAVAILABLE');
    await expect.poll(() => page.locator('#health-summary').textContent()).toContain('Not healthy');

    await page.getByRole('tab', { name: 'Faults' }).click();
    await fault.getByRole('button', { name: 'End' }).click();
    await expect.poll(() => fault.count()).toBe(0);
  });

  it('a long sheet shows its newest 500 rows; Earlier rows and Later rows page through the rest', async () => {
    rt.host.loadSheet('Archive', ['event_id'], Array.from({ length: 700 }, (_, i) => [`ev-${i + 2}`]));
    await page.getByRole('tab', { name: 'Archive' }).click();
    const info = page.locator('#sheet-info');
    await expect.poll(() => info.textContent()).toBe('Archive: rows 202–701 of 701 (header frozen: 1 row)');
    await page.getByRole('button', { name: 'Earlier rows' }).click();
    await expect.poll(() => info.textContent()).toContain('rows 2–501 of 701');
    expect(await page.getByRole('row').filter({ hasText: 'ev-2' }).first().isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Later rows' }).click();
    await expect.poll(() => info.textContent()).toContain('rows 202–701 of 701');
  });

  it('Set a Script Property… answers the menu\'s prompt with what was typed and shows the alert', async () => {
    await page.getByLabel('KEY=VALUE').fill('MAX_ATTEMPTS=3');
    await page.getByRole('button', { name: 'Set a Script Property…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('MAX_ATTEMPTS is set to 3');
    expect(rt.host.properties.get('MAX_ATTEMPTS')).toBe('3');
  });

  it('selected rows and Skip selected: the alert says what happened and the rows change', async () => {
    await rt.host.properties.set('PAUSED', 'true');
    await deliverSample('essay-submission.json');
    await page.getByRole('checkbox', { name: 'Select row 2' }).check();
    await page.getByRole('button', { name: 'Skip selected' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/Skip selected/);
    await dialog.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'status of row 2' }).inputValue()).toBe('SKIPPED');
  });
  it('the Health tab left open for 10 s with nothing happening runs doGet at most once (its own run does not redraw it)', async () => {
    const doGets = () => rt.host.executions.filter((x: any) => x.functionName === 'doGet').length;
    await page.getByRole('tab', { name: 'Health' }).click();
    await expect.poll(() => page.locator('#health-summary').textContent()).toMatch(/ealthy/);
    await expect.poll(doGets).toBeGreaterThanOrEqual(1);
    const before = doGets();
    await page.waitForTimeout(10_000); // the idle period being measured; the assertion below is a count
    expect(doGets() - before).toBeLessThanOrEqual(1);
  });

  it('acts as the owner for Set up and Self-test by default: Self-test shows no FAIL, Set up does not send to the owner', async () => {
    rt.host.opts.webAppUrl = `${rt.url}/exec`; // as `npm start` sets it (emulator/cli.mjs): the web app's own URL answers
    await page.getByRole('button', { name: 'Self-test', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const selfTest = await dialog.innerText();
    await dialog.getByRole('button', { name: 'OK' }).click();
    expect(selfTest).toMatch(/\b0 fail\b/);
    expect(selfTest).not.toMatch(/^FAIL:/m);
    await expect(page.getByLabel('Act as').inputValue()).resolves.toBe('auto');
    await page.getByRole('button', { name: 'Set up / repair', exact: true }).click();
    await dialog.waitFor();
    const setup = await dialog.innerText();
    await dialog.getByRole('button', { name: 'OK' }).click();
    expect(setup).not.toMatch(/ask owner@/);
    await page.getByLabel('Act as').selectOption('staff');
    await page.getByRole('button', { name: 'Self-test', exact: true }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'OK' }).click();
    const last = rt.host.executions.filter((x: any) => x.functionName === 'selfTest').at(-1);
    expect(last.user).toBe('staff@example.com');
  });

  it('Deliver sample makes a new submission each time; Redeliver the last one resends the same event', async () => {
    await deliverSample('essay-submission.json');
    await page.getByRole('button', { name: 'Deliver sample' }).click();
    await expect.poll(() => rt.queue().length).toBe(2);
    const [a, b] = rt.queue();
    expect(a.event_id).not.toBe(b.event_id);
    expect(a.response_token).not.toBe(b.response_token);
    await page.getByRole('button', { name: 'Redeliver the last one' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'redelivered' }).textContent()).toContain('"ok":true');
    expect(rt.queue().length).toBe(2);
  });

  it('the Queue grid: status frozen at the left, the columns staff read first next to it, payload last and collapsed', async () => {
    await deliverSample('essay-submission.json');
    const names = await page.locator('#grid thead th').allInnerTexts();
    expect(names.slice(1, 7)).toEqual(['status', 'error', 'recipient', 'result', 'sent_at', 'mail_ref']);
    expect(names.at(-1)).toBe('payload');
    const payload = page.locator('td[data-a1="H2"]');
    expect((await payload.innerText()).length).toBeLessThan(20);
    const status = page.locator('td[data-a1="A2"]');
    expect(await status.evaluate((td) => (globalThis as any).getComputedStyle(td).position)).toBe('sticky');
    await page.locator('.grid-wrap').evaluate((w) => { w.scrollLeft = 5000; });
    const box = await status.boundingBox();
    const wrap = await page.locator('.grid-wrap').boundingBox();
    expect(box!.x).toBeLessThan(wrap!.x + 200);
    await payload.click();
    await expect.poll(() => page.locator('#cell-value').inputValue()).toContain('event_id');
  });

  it('times read as dates (the ISO in a title); the message bar clears and does not cover the last row', async () => {
    await deliverSample('essay-submission.json');
    await processNow();
    await page.getByRole('tab', { name: 'Outbox' }).click();
    const sent = page.locator('#outbox tbody tr td').nth(1);
    await sent.waitFor();
    expect(await sent.innerText()).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(await sent.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d/);
    await page.getByRole('tab', { name: 'Queue' }).click();
    await page.getByRole('button', { name: 'Deliver sample' }).click();
    const message = page.locator('#message');
    await expect.poll(() => message.textContent()).toContain('"ok":true');
    // The last row scrolled to the bottom of the page: the point at its lower edge is the row, not the message bar.
    const lastRowVisible = () => page.evaluate(() => {
      const rows = (globalThis as any).document.querySelectorAll('#grid tbody tr');
      const tr = rows[rows.length - 1];
      tr.scrollIntoView({ block: 'end' });
      const box = tr.querySelector('td').getBoundingClientRect();
      return (globalThis as any).document.elementFromPoint(box.x + box.width / 2, box.bottom - 2)?.closest('tr') === tr;
    });
    await expect.poll(lastRowVisible).toBe(true);
    await page.getByRole('button', { name: 'Dismiss message' }).click();
    await expect.poll(() => message.textContent()).toBe('');
  });

  it('the Outbox opens a mail full size', async () => {
    await deliverSample('essay-submission.json');
    await processNow();
    await page.getByRole('tab', { name: 'Outbox' }).click();
    await page.getByRole('row').filter({ hasText: 'mina.okafor@example.com' }).getByRole('button', { name: 'Show' }).click();
    const frame = page.locator('iframe[title="Mail as HTML"]');
    await frame.waitFor();
    const box = (await frame.boundingBox())!;
    expect(box.height).toBeGreaterThan(500);
    expect(box.width).toBeGreaterThan(900);
  });

  it('Faults: a form (target, kind, count) adds a fault and says the format; no empty default Sheet1; a favicon', async () => {
    await page.getByRole('tab', { name: 'Faults' }).click();
    await expect(page.locator('#faults-panel').innerText()).resolves.toMatch(/count/);
    await page.getByLabel('Target', { exact: true }).selectOption('gemini');
    await page.getByLabel('Kind', { exact: true }).selectOption('status');
    await page.getByLabel('Value', { exact: true }).fill('503');
    await page.getByLabel('Count', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Add fault' }).click();
    const row = page.getByRole('row').filter({ hasText: '503' });
    await row.waitFor();
    expect(await row.innerText()).toContain('"count":2');
    await expect(page.getByRole('tab', { name: 'Sheet1' }).count()).resolves.toBe(0);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    const icon = await fetch(new URL(href!, rt.url));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\//);
  });

  it('has no serious or critical accessibility violations (axe-core) on the Queue, Outbox and Faults views', async () => {
    await deliverSample('essay-submission.json');
    await processNow();
    const serious: string[] = [];
    for (const tab of ['Queue', 'Outbox', 'Faults', 'Health']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('tab', { name: tab, selected: true }).waitFor();
      if (tab === 'Outbox') await page.locator('#outbox tbody tr').first().waitFor();
      await page.addScriptTag({ path: AXE });
      const result: any = await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document));
      for (const v of result.violations) if (v.impact === 'serious' || v.impact === 'critical') serious.push(`${tab}: ${v.id} ${v.help}: ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
    }
    expect(serious).toEqual([]);
  });
});
