// The one rule for when the day's rejections make an incident, and how their kinds are named.
import { describe, expect, it } from 'vitest';
import { REJECTED_INCIDENT_THRESHOLD, kindsLine, rejectedIncidentDetail, type KindCounts } from '../../../../src/core/domain/typeform/rejection-kinds';

const day = (count: number, kinds: KindCounts, dropped = 0) => ({ count, dropped, kinds });

describe('when the day\'s rejections open REJECTED_DELIVERIES', () => {
  it.each<[string, ReturnType<typeof day>, string | null]>([
    ['nothing rejected', day(0, {}), null],
    ['one unknown form (a second form wired to the same URL): a respondent waits', day(1, { unknown_form: 1 }), '1 delivery was rejected today (0 without their body): unknown form 1; see the Rejected sheet'],
    ['one field too large', day(1, { field_too_large: 1 }), '1 delivery was rejected today (0 without their body): field too large 1; see the Rejected sheet'],
    ['one internal error', day(1, { internal_error: 1 }), '1 delivery was rejected today (0 without their body): internal error 1; see the Rejected sheet'],
    ['nine wrong tokens: under the threshold', day(9, { unauthorized: 9 }), null],
    [
      `${REJECTED_INCIDENT_THRESHOLD} wrong tokens, two kept without their body`,
      day(10, { unauthorized: 10 }, 2),
      '10 deliveries were rejected today (2 without their body): missing or wrong token 10; see the Rejected sheet',
    ],
    ['partial responses alone, however many', day(40, { partial: 40 }), null],
    ['partials do not add up to the threshold with other kinds', day(15, { partial: 6, malformed: 9 }), null],
    [
      'partials are named when something else opens it',
      day(4, { partial: 3, unknown_form: 1 }),
      '4 deliveries were rejected today (0 without their body): unknown form 1, partial response 3; see the Rejected sheet',
    ],
    ['a count from before kinds were kept still opens it at the threshold', day(10, {}, 1), '10 deliveries were rejected today (1 without their body); see the Rejected sheet'],
  ])('%s', (_case, totals, detail) => {
    expect(rejectedIncidentDetail(totals)).toBe(detail);
  });
});

describe('kindsLine', () => {
  it('lists what needs staff first, leaves out kinds not seen, and ends with partial responses', () => {
    expect(kindsLine({ partial: 2, unauthorized: 3, not_configured: 1, malformed: 4, internal_error: 1, unknown_form: 5, field_too_large: 0 })).toBe(
      'unknown form 5, internal error 1, missing or wrong token 3, WEBHOOK_TOKEN not set up 1, not a Typeform delivery 4, partial response 2',
    );
    expect(kindsLine({})).toBe('');
  });
});
