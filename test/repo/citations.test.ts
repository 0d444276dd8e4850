// The docs and comments stand on their own: nothing cites files outside the repository, and every
// docs/platform.md anchor a file points at exists.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['README.md', 'docs', 'src', 'emulator', 'bench', 'scripts', 'test'];
const TEXT = /\.(ts|mjs|js|md|json)$/;
/** Citations of the project's private notes or of a machine path (this file names them only as patterns). */
const OUTSIDE = [/\.\.\/shared/, /PLATFORM(\.md)? ?§/, /RUNTIME-NOTES/, /DESIGN §/, new RegExp('/' + 'work/')];

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (statSync(full).isFile()) return TEXT.test(path) ? [path] : [];
  return readdirSync(full).filter((n) => n !== 'node_modules').flatMap((n) => files(join(path, n)));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const headings = markdown.split('\n').filter((l) => /^#{1,6} /.test(l));
  return new Set(headings.map((h) => h.replace(/^#+ /, '').toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
}

const scanned = SCANNED.flatMap(files).filter((f) => f !== relative(ROOT, import.meta.filename));

describe('citations', () => {
  it('no file cites the private notes, ../shared or a machine path', () => {
    const hits = scanned.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8').split('\n').flatMap((line, i) => (OUTSIDE.some((re) => re.test(line)) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('every docs/platform.md#anchor cited in a file is a heading of docs/platform.md', () => {
    const known = anchors(readFileSync(join(ROOT, 'docs', 'platform.md'), 'utf8'));
    const cited = scanned.flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/platform\.md#([a-z0-9-]+)/g)].map((m) => `${f}: #${m[1]}`));
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter((c) => !known.has(c.split('#')[1]))).toEqual([]);
  });
});
