// Shared helpers for the emulator contract tests: a host per test on a purpose-written bundle, and condition waits.
import { GasHost } from '../../emulator/host.mjs';
import { fileURLToPath } from 'node:url';

export function bundle(name: string): string {
  return fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
}

export function makeHost(name: string, opts: Record<string, unknown> = {}): any {
  return new GasHost({ bundleDir: bundle(name), dataDir: null, ...opts });
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
