// Bundles src/entry/main.ts into the one file Apps Script runs (dist/Code.js) plus its manifest.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

// Private global: the IIFE's exports live here; only the generated stubs below are public.
const GLOBAL_NAME = '__formqueue';
const common = {
  entryPoints: ['src/entry/main.ts'],
  bundle: true,
  platform: 'neutral',
  target: 'es2019', // Apps Script V8 rejects class fields; es2019 lowers everything newer (RUNTIME-NOTES §1)
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
rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
await esbuild.build({
  ...common,
  format: 'iife',
  globalName: GLOBAL_NAME,
  outfile: 'dist/Code.js',
  footer: { js: stubs.join('\n') },
});
copyFileSync('appsscript.json', 'dist/appsscript.json');
if (!process.argv.includes('--quiet')) console.log(`build: dist/Code.js with ${exported.length} entry points: ${exported.join(', ')}`);
