// Finds the Chromium the console's browser tests and screenshots drive (playwright-core brings no browser of its own).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const MISSING_CHROMIUM = 'The console browser tests need Chromium and found none: install it (Debian/Ubuntu: `apt-get install -y chromium`; '
  + '.ci/run does this) or set CHROMIUM_PATH to a Chromium or Chrome binary.';

/** CHROMIUM_PATH, else the first chromium on the PATH; throws MISSING_CHROMIUM (never a silent skip). @param {NodeJS.ProcessEnv} [env] */
export function findChromium(env = process.env) {
  const given = env.CHROMIUM_PATH;
  if (given) {
    if (existsSync(given)) return given;
    throw new Error(`CHROMIUM_PATH is ${given}, which does not exist. ${MISSING_CHROMIUM}`);
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const found = execFileSync('which', [name], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (found) return found;
    } catch {
      // not this one
    }
  }
  throw new Error(MISSING_CHROMIUM);
}
