// `node scripts/combine-mutation-reports.mjs <stryker json>…`: one score for src/core from several scoped Stryker runs.
// For each file the newest report (by file time) that mutated it counts; a file no report mutated is not counted.
// This is not one run: each file's figure is from the code and tests of its own run (docs/changelog.md says which).
import { readFileSync, statSync } from 'node:fs';

const byFile = new Map();
for (const path of process.argv.slice(2)) {
  const time = statSync(path).mtimeMs;
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const [file, entry] of Object.entries(report.files)) {
    const key = file.replace(/^.*?(src\/core\/)/, '$1');
    const known = byFile.get(key);
    if (!known || known.time < time) byFile.set(key, { time, path, mutants: entry.mutants });
  }
}
const totals = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0 };
const rows = [];
for (const [file, { path, mutants }] of byFile) {
  const count = Object.fromEntries(Object.keys(totals).map((status) => [status, mutants.filter((m) => m.status === status).length]));
  for (const status of Object.keys(totals)) totals[status] += count[status];
  const counted = count.Killed + count.Timeout + count.Survived + count.NoCoverage;
  rows.push({ file, score: counted === 0 ? 100 : (100 * (count.Killed + count.Timeout)) / counted, ...count, path });
}
for (const row of rows.sort((a, b) => a.score - b.score || a.file.localeCompare(b.file))) {
  console.log(`${row.score.toFixed(1).padStart(5)} %  ${row.file}  killed ${row.Killed}, timed out ${row.Timeout}, survived ${row.Survived}, no coverage ${row.NoCoverage}  (${row.path})`);
}
const counted = totals.Killed + totals.Timeout + totals.Survived + totals.NoCoverage;
console.log(`src/core: ${((100 * (totals.Killed + totals.Timeout)) / counted).toFixed(2)} % over ${rows.length} files ` +
  `(killed ${totals.Killed}, timed out ${totals.Timeout}, survived ${totals.Survived}, no coverage ${totals.NoCoverage})`);
