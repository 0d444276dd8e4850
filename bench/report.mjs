// Shared report helpers: markdown tables, the machine a run happened on, and writing a docs page.
import { cpus, platform, release, totalmem, type as osType } from 'node:os';
import { writeFileSync } from 'node:fs';

export function table(header, rows) {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(cells[0]), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}

export function machine() {
  const list = cpus();
  return {
    os: `${osType()} ${release()} (${platform()})`,
    cpus: `${list.length} × ${list[0]?.model ?? 'unknown'}`,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    node: process.version,
    date: new Date().toISOString(),
  };
}

export function machineLines(m = machine()) {
  return [`- OS: ${m.os}`, `- CPUs: ${m.cpus}`, `- Memory: ${m.memory}`, `- Node: ${m.node}`, `- Date: ${m.date}`];
}

export function writeDoc(relativePath, text) {
  const url = new URL(`../${relativePath}`, import.meta.url);
  writeFileSync(url, text.endsWith('\n') ? text : `${text}\n`);
  return url.pathname;
}

export const fmt = {
  int: (n) => (n === null || n === undefined ? '–' : Math.round(n).toLocaleString('en-US')),
  ms: (n) => (n === null || n === undefined ? '–' : `${n.toFixed(n < 10 ? 1 : 0)} ms`),
  x: (n, digits = 2) => (Number.isFinite(n) ? Number(n.toFixed(digits)).toString() : String(n)),
};
