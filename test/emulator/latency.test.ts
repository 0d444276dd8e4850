// Contract tests for --latency: the shipped model (sources and confidence for each figure), the pure sampler, and
// the host delaying each call before it answers the worker, with modeled time beside wall time.
import { describe, expect, it, afterEach } from 'vitest';
import {
  ExecutionLatency, cellsOf, costNameOf, executionRng, loadLatencyModel, parseLatencySpec, sampleCost,
} from '../../emulator/latency.mjs';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { makeHost } from './helpers';

type Cost = { dist: string; median?: number; p90?: number; value?: number; perCell?: number; confidence: string; source: string };
const model = loadLatencyModel() as { costs: Record<string, Cost>; calls: Record<string, string>; classDefaults: Record<string, string>; sources: Record<string, string> };

const quantile = (xs: number[], p: number) => xs.slice().sort((a, b) => a - b)[Math.floor(p * xs.length)];

describe('the latency model file', () => {
  it('names a source and a confidence A, B or C for every figure, and every call maps to a cost it defines', () => {
    for (const [name, cost] of Object.entries(model.costs)) {
      expect(['A', 'B', 'C'], name).toContain(cost.confidence);
      expect(model.sources[cost.source], `${name} cites ${cost.source}`).toBeTruthy();
      if (cost.dist === 'lognormal') expect(cost.p90!, name).toBeGreaterThan(cost.median!);
    }
    for (const target of [...Object.values(model.calls), ...Object.values(model.classDefaults)]) expect(model.costs[target], target).toBeTruthy();
    // A figure rated A must come from a published measurement (a URL), not from an unpublished note or a guess.
    for (const [name, cost] of Object.entries(model.costs)) if (cost.confidence === 'A') expect(model.sources[cost.source], name).toMatch(/^https:\/\//);
  });

  // ziritione.org/post/apps_script_performance: getProperty avg 30 ms, CacheService.get avg 3 ms, put avg 93 ms.
  it('maps each service call to the measured figure it stands for', () => {
    expect(costNameOf(model, 'Properties.getProperty')).toBe('properties.get');
    expect(costNameOf(model, 'Cache.put')).toBe('cache.put');
    expect(costNameOf(model, 'Range.setValues')).toBe('spreadsheet.write');
    expect(costNameOf(model, 'SpreadsheetApp.flush')).toBe('spreadsheet.flush');
    expect(costNameOf(model, 'UrlFetchApp.fetch')).toBe('urlfetch.fetch');
    expect(costNameOf(model, 'MailApp.sendEmail')).toBe('mail.send');
    expect(costNameOf(model, 'Range.setBackground')).toBe('spreadsheet.format');
    expect(costNameOf(model, 'ScriptApp.getProjectTriggers')).toBe('other');
  });
});

describe('the sampler', () => {
  it('draws lognormal costs whose median and 90th percentile match the model within 5%, for every lognormal figure', () => {
    const rng = xoroshiro128plus(20261201);
    for (const [name, cost] of Object.entries(model.costs)) {
      if (cost.dist !== 'lognormal') continue;
      const xs = Array.from({ length: 20000 }, () => sampleCost(cost, uniformFloat64(rng), uniformFloat64(rng)));
      expect(Math.abs(quantile(xs, 0.5) / cost.median! - 1), `${name} median`).toBeLessThan(0.05);
      expect(Math.abs(quantile(xs, 0.9) / cost.p90! - 1), `${name} p90`).toBeLessThan(0.05);
    }
  });

  it('prices getSheetValues by the block it returns: -1 reaches the last row or column with data from the start cell', () => {
    const sheet = { lastRow: () => 1000, lastColumn: () => 16 };
    const ss = { byId: (id: number) => (id === 7 ? sheet : null) };
    const read = (a: unknown[]) => cellsOf(ss, { c: 'Sheet', m: 'getSheetValues', h: { sid: 7 }, a });
    expect(read([1, 1, 1, -1])).toBe(16); // a header row, not the sheet
    expect(read([1, 1, -1, -1])).toBe(16000);
    expect(read([2, 3, -1, 2])).toBe(999 * 2);
    expect(read([1, 1, 5, 4])).toBe(20);
    expect(cellsOf(ss, { c: 'Sheet', m: 'getSheetValues', h: { sid: 8 }, a: [1, 1, 1, -1] })).toBe(0);
  });

  it('adds perCell × cells on top of a draw, and a fixed cost is its value', () => {
    const read = model.costs['spreadsheet.read'];
    expect(sampleCost(read, 0.3, 0.7, 1000) - sampleCost(read, 0.3, 0.7, 0)).toBeCloseTo(1000 * read.perCell!, 9);
    expect(sampleCost(model.costs['spreadsheet.flushEmpty'], 0.1, 0.9)).toBe(5);
  });

  it('the same seed and execution draw the same delays; another seed draws others', () => {
    const draws = (seed: number, n: number) => { const l = new ExecutionLatency(model, executionRng(seed, n), 1); return [l.call('Cache.put'), l.call('Properties.getProperty'), l.call('Range.getValues', 500)]; };
    expect(draws(7, 3)).toEqual(draws(7, 3));
    expect(draws(7, 3)).not.toEqual(draws(8, 3));
    expect(draws(7, 3)).not.toEqual(draws(7, 4));
  });

  // scriptdb-vs-sheets (Stack Overflow, mirrored): writes are buffered; a flush pays per cell; a read commits first.
  it('buffers writes: their cells are paid at the next read or flush, once', () => {
    const l = new ExecutionLatency(model, executionRng(1, 1), 1);
    l.call('Range.setValues', 4000);
    expect(l.pendingCells).toBe(4000);
    const readAfterWrite = l.call('Range.getValues', 1);
    expect(l.pendingCells).toBe(0);
    expect(readAfterWrite).toBeGreaterThan(4000 * model.costs['spreadsheet.flush'].perCell!);
    expect(l.call('SpreadsheetApp.flush')).toBe(model.costs['spreadsheet.flushEmpty'].value);
    l.call('Range.setValue', 1);
    l.call('Lock.releaseLock'); // releaseLock does not flush (reference/lock/lock: call SpreadsheetApp.flush() first)
    expect(l.pendingCells).toBe(1);
  });

  it('google:0.1 sleeps a tenth of what it models', () => {
    const full = new ExecutionLatency(model, executionRng(5, 1), 1), tenth = new ExecutionLatency(model, executionRng(5, 1), 0.1);
    expect(tenth.call('Cache.put')).toBeCloseTo(full.call('Cache.put') / 10, 9);
    expect(tenth.modeledMs).toBeCloseTo(full.modeledMs, 9);
  });

  it('says what each modeled millisecond was spent on: the shares by cost add up to the modeled total', () => {
    const l = new ExecutionLatency(model, executionRng(7, 1), 0.1);
    l.start({ bundleKb: 400, cold: true });
    l.call('Properties.getProperties');
    l.call('Range.setValues', 100);
    l.call('Range.getValues', 50); // pays the flush of the 100 cells first
    l.call('SpreadsheetApp.flush'); // nothing pending: the fixed empty flush
    l.finish(0);
    const shares = l.byCost as Record<string, number>;
    expect(Object.keys(shares).sort()).toEqual(['execution.coldExtra', 'execution.start', 'execution.startPerKb', 'properties.getAll',
      'spreadsheet.flush', 'spreadsheet.flushEmpty', 'spreadsheet.read', 'spreadsheet.write']);
    expect(shares['execution.startPerKb']).toBe(200);
    expect(Object.values(shares).reduce((a, b) => a + b, 0)).toBeCloseTo(l.modeledMs, 9);
  });

  it('parses --latency off, google and google:SCALE, and refuses anything else', () => {
    expect(parseLatencySpec('off')).toBe(null);
    expect(parseLatencySpec(undefined)).toBe(null);
    expect(parseLatencySpec('google')).toEqual({ scale: 1 });
    expect(parseLatencySpec('google:0.1')).toEqual({ scale: 0.1 });
    for (const bad of ['fast', 'google:0', 'google:-1', 'google:x']) expect(() => parseLatencySpec(bad), bad).toThrow(/--latency expects/);
  });
});

describe('the host with --latency', () => {
  let host: any;
  afterEach(async () => { await host?.dispose(); });

  it('with latency off an execution has no modeled time and sleeps nothing', async () => {
    host = makeHost('latency');
    const rec = await host.run('mix', [], { kind: 'api' });
    expect(rec.status).toBe('ok');
    expect(rec.modeledMs).toBeUndefined();
  });

  it('records modeled time beside wall time: start, every call and the final flush, at full scale while sleeping a hundredth', async () => {
    host = makeHost('latency', { latency: 'google:0.01', latencySeed: 42 });
    const rec = await host.run('mix', [], { kind: 'api' });
    expect(rec.status).toBe('ok');
    const l = rec.latency;
    expect(l).toMatchObject({ spec: 'google:0.01', seed: 42 });
    expect(l.modeledStartMs).toBeGreaterThan(0);
    expect(l.sleptMs).toBeCloseTo(l.modeledDelayMs / 100, 6);
    // a mail (median 700 ms) and a warm start (median 750 ms) alone make a modeled run far longer than its sleeps
    expect(rec.modeledMs).toBeCloseTo(rec.durationMs - l.sleptMs + l.modeledDelayMs, 6);
    expect(rec.modeledMs).toBeGreaterThan(l.sleptMs);
  });

  it('the same seed models the same delays for the same executions', async () => {
    const delays = async (seed: number) => {
      const h = makeHost('latency', { latency: 'google:0.01', latencySeed: seed });
      try {
        const out = [];
        for (let i = 0; i < 2; i++) out.push((await h.run('mix', [], { kind: 'api' })).latency.modeledDelayMs);
        return out;
      } finally { await h.dispose(); }
    };
    const a = await delays(9);
    expect(await delays(9)).toEqual(a);
    expect(await delays(10)).not.toEqual(a);
  });

  it('delays each answer in the host: every call\'s round trip, as the worker measures it, covers the delay slept for it', async () => {
    host = makeHost('latency', { latency: 'google:0.02', latencySeed: 3 });
    host.bridgeStats({ reset: true });
    const rec = await host.run('mix', [], { kind: 'api' });
    const rtts: number[] = host.rtts; // µs, one per call, measured inside the worker
    expect(rtts.length).toBe(rec.serviceCalls);
    const sleptForCalls = rec.latency.sleptMs - rec.latency.modeledStartMs * 0.02;
    // setTimeout never fires early by more than its 1 ms rounding, so the sum of round trips is at least the sleeps
    expect(rtts.reduce((a, b) => a + b, 0) / 1000).toBeGreaterThanOrEqual(sleptForCalls - rec.serviceCalls * 2);
  });
});
