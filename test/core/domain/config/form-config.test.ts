// The Config sheet's later columns (allowed_link_domains, allow_phone_numbers, time_zone) read into FormConfig.
import { describe, expect, it } from 'vitest';
import { blankFormConfig, formConfigsFromValues } from '../../../../src/core/domain/config/form-config';

describe('formConfigsFromValues: the later columns', () => {
  it('reads allowed_link_domains, allow_phone_numbers and time_zone by header name, trimmed', () => {
    const values = [
      ['form_id', 'Time_Zone', 'allow_phone_numbers', ' allowed_link_domains '],
      ['F1', ' Europe/Berlin ', 'yes', ' school.example, *.help.example '],
    ];
    expect(formConfigsFromValues(values)).toStrictEqual([
      { ...blankFormConfig('F1'), allowedLinkDomains: 'school.example, *.help.example', allowPhoneNumbers: true, timeZone: 'Europe/Berlin' },
    ]);
  });

  it('a Config with a time_zone column gives each form its cell, a blank one too (the `*` row fills it); without the column there is none', () => {
    expect(formConfigsFromValues([['form_id', 'time_zone'], ['F1', '']])).toStrictEqual([{ ...blankFormConfig('F1'), timeZone: '' }]);
    expect(formConfigsFromValues([['form_id', 'send_hours'], ['F1', '']])).toStrictEqual([blankFormConfig('F1')]);
  });

  it('an allow_phone_numbers cell that is neither yes nor no is read as no, and named with what that means', () => {
    const [form] = formConfigsFromValues([['form_id', 'allow_phone_numbers'], ['F1', 'sometimes']]);
    expect(form).toStrictEqual({
      ...blankFormConfig('F1'),
      allowPhoneNumbers: false,
      problems: [
        'Config for form "F1": allow_phone_numbers "sometimes" is neither yes nor no: tick the checkbox for yes, leave it empty for no; until it is fixed a reply naming a phone number waits for a person',
      ],
    });
  });
});
