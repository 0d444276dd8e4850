// A row's raw payload as the values its templates substitute, or null when the payload is no Typeform JSON.
import { describe, expect, it } from 'vitest';
import { answerValuesByRef } from '../../../../src/core/domain/typeform/template-answers';
import { payloadOf } from '../../fakes/typeform-delivery';

describe('answerValuesByRef', () => {
  it('gives each answer by its field ref', () => {
    expect(answerValuesByRef(payloadOf('Mina'))).toMatchObject({ name: 'Mina' });
  });

  it.each([
    ['a pointer into the Payloads sheet that was not resolved', '[payload in Payloads: 3 parts]'],
    ['an empty cell', ''],
    ['JSON that is no Typeform delivery', '{"hello": "world"}'],
  ])('%s gives null', (_what, payload) => {
    expect(answerValuesByRef(payload)).toBeNull();
  });
});
