// Shared helpers for the emulator contract tests: a host per test on a purpose-written bundle, and condition waits.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GasHost } from '../../emulator/host.mjs';

export function bundle(name: string): string {
  return fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
}

export function makeHost(name: string, opts: Record<string, unknown> = {}): any {
  return new GasHost({ bundleDir: bundle(name), dataDir: null, ...opts });
}

const copiedBundles: string[] = [];

/** The purpose-written bundle `name` with another manifest, copied into a temporary directory that disposeHost removes. */
export function bundleWithManifest(name: string, manifest: object): string {
  const dir = mkdtempSync(join(tmpdir(), `fq-${name}-`));
  cpSync(join(bundle(name), 'Code.js'), join(dir, 'Code.js'));
  writeFileSync(join(dir, 'appsscript.json'), JSON.stringify(manifest));
  copiedBundles.push(dir);
  return dir;
}

/** The afterEach of a file with a host per test: disposes the host and removes every bundle bundleWithManifest copied. */
export async function disposeHost(host: { dispose(): Promise<void> } | undefined): Promise<void> {
  await host?.dispose();
  for (const dir of copiedBundles.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Waits for a state change the test cannot await directly (never a timing assertion). */
export async function until(cond: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}
