// docs/architecture.md's map is true: every folder and file it names exists, and test/core mirrors src/core.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
const root = new URL('../../', import.meta.url).pathname;

/** `a/b.ts`, `c.ts` in one table cell or sentence: a bare name lives in the folder of the last full path before it. */
function namedPaths(text: string): string[] {
  const paths: string[] = [];
  for (const line of text.split('\n')) {
    for (const cell of line.split('|')) {
      let folder = '';
      for (const [, name] of cell.matchAll(/`([\w./-]+\/?)`/g)) {
        if (/^(src|test|emulator|scripts|bench|harness|docs)\//.test(name)) {
          paths.push(name);
          folder = name.endsWith('/') ? name : name.slice(0, name.lastIndexOf('/') + 1);
        } else if (/^[\w.-]+\.(ts|mjs)$/.test(name) && folder !== '') paths.push(folder + name);
      }
    }
  }
  return [...new Set(paths)];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

describe("docs/architecture.md's map", () => {
  const paths = namedPaths(doc);

  it('names the core folders a newcomer looks in', () => {
    for (const folder of ['domain/queue/', 'domain/mail/', 'intake/', 'processing/', 'staff/', 'triage/', 'reconcile/', 'self-test/', 'runs/']) {
      expect(paths).toContain(`src/core/${folder}`);
    }
  });

  it.each(paths)('%s exists', (path) => {
    expect(existsSync(join(root, path)), `${path} is named in docs/architecture.md but does not exist: fix the map`).toBe(true);
  });

  it('names every folder of src/core', () => {
    const folders = walk(join(root, 'src/core')).map((file) => file.slice(root.length, file.lastIndexOf('/') + 1));
    for (const folder of new Set(folders)) expect(paths, `${folder} is missing from the map`).toContain(folder);
  });
});

/** Modules with functions whose tests live elsewhere, each with where and why. */
const TESTED_THROUGH_ANOTHER: Record<string, string> = {};

describe('test/core mirrors src/core', () => {
  const modules = new Set(walk(join(root, 'src/core')).map((file) => file.slice(root.length + 'src/core/'.length).replace(/\.ts$/, '')));
  const testFiles = walk(join(root, 'test/core')).filter((file) => file.endsWith('.test.ts')).map((file) => file.slice(root.length + 'test/core/'.length).replace(/\.test\.ts$/, ''));

  it.each([...modules].filter((module) => /^export (async )?function /m.test(readFileSync(join(root, 'src/core', `${module}.ts`), 'utf8'))))(
    '%s, a module with functions, has a test file of its own',
    (module) => {
      const own = testFiles.filter((name) => name === module || name.startsWith(`${module}-`));
      if (module in TESTED_THROUGH_ANOTHER) {
        expect(own, `${module} has its own test file now: drop it from TESTED_THROUGH_ANOTHER`).toEqual([]);
        return;
      }
      expect(own.length, `src/core/${module}.ts has no test/core/${module}.test.ts: its tests belong there`).toBeGreaterThan(0);
    },
  );

  it.each(walk(join(root, 'test/core')).filter((file) => file.endsWith('.test.ts')).map((file) => file.slice(root.length)))(
    '%s tests a module of the mirrored folder',
    (file) => {
      const name = file.slice('test/core/'.length).replace(/\.test\.ts$/, '');
      const folder = name.slice(0, name.lastIndexOf('/') + 1);
      const base = name.slice(folder.length);
      const owner = [...modules].filter((module) => module.startsWith(folder) && !module.slice(folder.length).includes('/')).find((module) => base === module.slice(folder.length) || base.startsWith(`${module.slice(folder.length)}-`));
      expect(owner, `${file}: name it <module>.test.ts or <module>-<aspect>.test.ts in the folder of the module it tests`).toBeDefined();
    },
  );
});
