// Bundles src/entry/main.ts into the one file Apps Script runs (dist/Code.js) plus its manifest.
import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestFor } from './manifest.mjs';

// Private global: the IIFE's exports live here; only the generated stubs below are public.
const GLOBAL_NAME = '__formqueue';
const common = {
  entryPoints: ['src/entry/main.ts'],
  bundle: true,
  platform: 'neutral',
  // Bundled libraries (markdown-it and its dependencies) are found through their package.json entry points;
  // "neutral" reads none by default. No Node built-in is imported: Apps Script has none.
  mainFields: ['module', 'main'],
  target: 'es2019', // Apps Script V8 rejects class fields; es2019 lowers everything newer (docs/platform.md#apps-script-v8-runtime)
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'warning',
};

// Pass 1: ask esbuild which names main.ts exports: that list is the script's public surface.
const probe = await esbuild.build({ ...common, format: 'esm', write: false, metafile: true, outfile: 'probe.js' });
const exported = Object.values(probe.metafile.outputs)[0].exports.slice().sort();
if (exported.length === 0) throw new Error('build: src/entry/main.ts exports nothing');

// Pass 2: an IIFE plus one top-level function declaration per export. Apps Script only sees
// top-level function declarations as entry points (triggers, menus, web app).
const stubs = exported.map((name) => `function ${name}() { return ${GLOBAL_NAME}.${name}.apply(this, arguments); }`);
// Minified: Apps Script charges an execution's start by the size of the code it loads (about 0.5 ms per KB,
// docs/performance.md), and every doPost and tick pays it. keepNames keeps each function's own name, so the stack a
// CODE_BUG triage mail carries still reads "at storeDelivery (Code:1:…)"; only the line numbers are gone (one line).
// The stubs (the footer) and the global name are left as written: Apps Script needs them by name.
const bundle = await esbuild.build({
  ...common,
  minify: true,
  keepNames: true,
  format: 'iife',
  globalName: GLOBAL_NAME,
  outfile: 'dist/Code.js',
  write: false,
  footer: { js: stubs.join('\n') },
});

// dist/ holds exactly the two files clasp pushes; each is replaced by a rename, so an execution loading
// the bundle while a build runs (tests, the local runtime) sees the old file or the new one, never half of one.
const OUTPUTS = ['Code.js', 'appsscript.json'];
mkdirSync('dist', { recursive: true });
for (const name of readdirSync('dist')) if (!OUTPUTS.includes(name)) rmSync(join('dist', name), { recursive: true, force: true });
function replaceFile(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
// The Gmail read scope is asked for only when RECONCILE_SENT_MAIL is to be used: nobody else sees that consent line.
const reconcileSentMail = process.argv.includes('--reconcile-sent-mail');
// The script's time zone (send_hours, the daily summary's day, the 06:00 Typeform check): --time-zone ID or
// FORMQUEUE_TIME_ZONE, else appsscript.json's. A wrong id stops the build before dist/ changes.
const zoneAt = process.argv.indexOf('--time-zone');
const timeZone = (zoneAt >= 0 ? process.argv[zoneAt + 1] ?? '(missing)' : process.env.FORMQUEUE_TIME_ZONE ?? '').trim();
let manifest;
try {
  manifest = manifestFor(JSON.parse(readFileSync('appsscript.json', 'utf8')), { reconcileSentMail, timeZone });
} catch (error) {
  console.error(`build: ${error.message}`);
  process.exit(2);
}
const changed = reconcileSentMail || timeZone !== '';
replaceFile('dist/Code.js', bundle.outputFiles[0].text);
replaceFile('dist/appsscript.json', changed ? `${JSON.stringify(manifest, null, 2)}\n` : readFileSync('appsscript.json', 'utf8'));
if (!process.argv.includes('--quiet')) console.log(`build: dist/Code.js with ${exported.length} entry points: ${exported.join(', ')}`);
