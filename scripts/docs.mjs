// npm run docs: rewrites the generated blocks of docs/*.md from the code (test/scripts/docs.test.ts fails when they differ).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundled = await build({
  entryPoints: [`${root}scripts/docs/render-docs.ts`],
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
});
const { GENERATED_DOCS } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
const check = process.argv.includes('--check');
let stale = 0;
for (const doc of GENERATED_DOCS) {
  const path = `${root}${doc.path}`;
  const current = readFileSync(path, 'utf8');
  const next = doc.render(current);
  if (next === current) continue;
  stale++;
  if (check) console.log(`${doc.path} differs from the code`);
  else {
    writeFileSync(path, next);
    console.log(`wrote ${doc.path}`);
  }
}
if (check && stale > 0) process.exit(1);
