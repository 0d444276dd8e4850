// The generated blocks of the docs match the code: edit the code and run `npm run docs`, never the block.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fillBlocks } from '../../scripts/docs/generated-blocks';
import { GENERATED_DOCS } from '../../scripts/docs/render-docs';

const root = new URL('../../', import.meta.url);

describe('generated docs', () => {
  it.each(GENERATED_DOCS.map((doc) => [doc.path, doc] as const))('%s is what `npm run docs` writes from the code', (_path, doc) => {
    const current = readFileSync(new URL(doc.path, root), 'utf8');
    expect(doc.render(current)).toBe(current);
  });

  it('a block whose markers are gone fails loudly instead of being skipped', () => {
    expect(() => fillBlocks('no markers here', { 'states-table': 'x' })).toThrow(/states-table/);
  });

  it('only the block changes; the prose around it is kept', () => {
    const text = 'before\n<!-- BEGIN generated: b (npm run docs; edit the code, not this block) -->\nold\n<!-- END generated: b -->\nafter\n';
    expect(fillBlocks(text, { b: 'new' })).toBe(text.replace('old', 'new'));
  });
});
