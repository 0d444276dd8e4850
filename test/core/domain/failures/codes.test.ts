// An incident code read back from storage is one formqueue knows, or it is dropped.
import { describe, expect, it } from 'vitest';
import { INCIDENT_CODES, isIncidentCode } from '../../../../src/core/domain/failures/codes';

describe('isIncidentCode', () => {
  it('knows every code of the list', () => {
    for (const code of INCIDENT_CODES) expect(isIncidentCode(code)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a code of another casing', 'sheets_unavailable'],
    ['a code no longer in the list', 'SOMETHING_RETIRED'],
    ['an empty text', ''],
    ['null', null],
    ['a number', 1],
  ])('refuses %s', (_what, value) => {
    expect(isIncidentCode(value)).toBe(false);
  });
});
