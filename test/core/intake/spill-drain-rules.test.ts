// drainSpill when storing an entry throws: which failures stop the drain, which set only that entry aside; and the lock.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../src/core/domain/failures/errors';
import { drainSpill } from '../../../src/core/intake/spill-drain';
import { countLocks, memoryIntake } from './memory-intake';

const essay = readFileSync(new URL('../../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8');
const noEmail = readFileSync(new URL('../../fixtures/typeform/no-email.json', import.meta.url), 'utf8');

/** An intake whose Config read throws `failure` on the first entry only, and counts lock takes and releases. */
function failingOnce(failure: unknown) {
  const m = memoryIntake();
  const locks = countLocks(m);
  const openSheets = m.deps.openSheets;
  let failed = false;
  m.deps.openSheets = () => {
    const sheets = openSheets();
    return {
      ...sheets,
      get tally() {
        return sheets.tally;
      },
      readForms: () => {
        if (!failed) {
          failed = true;
          throw failure;
        }
        return sheets.readForms();
      },
    };
  };
  m.spilled.push({ id: '1-a', receivedAt: 1, body: essay }, { id: '2-b', receivedAt: 2, body: noEmail });
  return { m, locks };
}

describe('drainSpill when storing an entry throws', () => {
  it.each([
    ['a Sheets outage by its message', () => new Error('Exception: Service Spreadsheets timed out while accessing document with id x.')],
    ['a Sheets outage by its code', () => codedError('SHEETS_UNAVAILABLE', 'the sheet did not answer')],
    ['a missing set-up (CONFIG_MISSING)', () => codedError('CONFIG_MISSING', 'no Config sheet')],
  ])('%s stops the drain: rethrown, logged, every entry still spilled, nothing set aside, the lock released', (_name, make) => {
    const failure = make();
    const { m, locks } = failingOnce(failure);
    expect(() => drainSpill(m.deps)).toThrow(failure);
    expect(m.spilled.map((entry) => entry.id)).toEqual(['1-a', '2-b']);
    expect(m.rejected).toEqual([]);
    expect(m.queue).toEqual([]);
    expect(m.logs).toEqual([`spill drain stopped: ${failure.message}`]);
    expect(locks).toEqual({ taken: 1, released: 1 });
  });

  it.each([
    ['an error with another code', () => codedError('CELL_TOO_LARGE', 'odd'), '(CELL_TOO_LARGE): odd'],
    ['an error without a code', () => new TypeError('x is not a function'), '(CODE_BUG): x is not a function'],
  ])('%s sets only that entry aside, with the code and message, and queues the entries behind it', (_name, make, detail) => {
    const { m, locks } = failingOnce(make());
    expect(drainSpill(m.deps)).toEqual({ queued: 1, duplicates: 0, rejected: 1, left: 0 });
    expect(m.rejected.map((entry) => entry.reason)).toEqual([`spilled delivery could not be queued ${detail}`]);
    expect(m.rejected[0].body).toBe(essay);
    expect(m.queue.map((row) => row.eventId)).toEqual(['01JQ9A0B1C2D3E4F5G6H7J8K9M']);
    expect(m.spilled).toEqual([]);
    expect(m.logs).toEqual([]);
    expect(locks).toEqual({ taken: 1, released: 1 });
  });
});

describe('drainSpill and the intake lock', () => {
  it('an empty spill neither takes the lock nor opens the sheet (a sheet that is down is no error then)', () => {
    const { m, locks } = failingOnce(new Error('unused'));
    m.spilled.length = 0;
    m.sheetsDown.value = true;
    expect(drainSpill(m.deps)).toEqual({ queued: 0, duplicates: 0, rejected: 0, left: 0 });
    expect(locks).toEqual({ taken: 0, released: 0 });
  });

  it('a drain that completes releases the lock it took, once', () => {
    const { m, locks } = failingOnce(codedError('CELL_TOO_LARGE', 'odd'));
    drainSpill(m.deps);
    expect(locks).toEqual({ taken: 1, released: 1 });
  });
});
