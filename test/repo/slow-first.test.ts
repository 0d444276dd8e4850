// The sequencer's list of files to start first names files that exist, so a renamed test cannot drop out of it unseen.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLOW_FIRST } from '../slow-first-sequencer';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the files vitest starts first', () => {
  it.each(SLOW_FIRST)('%s exists', (file) => expect(existsSync(join(ROOT, file))).toBe(true));

  it('names each file once', () => expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length));
});
