// The Queue row a Typeform delivery becomes: PENDING (TEST for Typeform's test), its identity, recipient, and a payload kept whole.
import { describe, expect, it } from 'vitest';
import { buildQueueRow } from '../../../../src/core/domain/queue/submission-row';
import { CELL_LIMIT_CHARS } from '../../../../src/core/domain/queue/cell-chunks';
import { parseTypeformBody, type TypeformDelivery } from '../../../../src/core/domain/typeform/typeform-payload';
import { T0, typeformFixture } from '../../memory-ports';

const FORM = { formId: 'lT4Z3j', enabled: true, recipientField: '' };

function delivery(body: string): TypeformDelivery {
  const parsed = parseTypeformBody(body);
  if (!parsed.ok) throw new Error(`fixture does not parse: ${JSON.stringify(parsed)}`);
  return parsed.delivery;
}

describe('buildQueueRow', () => {
  it('a submission is PENDING, known by its event, form and response token, mailed to its email answer', () => {
    const { row, payloadChunks } = buildQueueRow(delivery(typeformFixture('example-payload')), T0, FORM);
    expect(row).toMatchObject({ status: 'PENDING', eventId: 'LtWXD3crgy', formId: 'lT4Z3j', responseToken: 'a3a12ec67a1365927098a606107fac15', recipient: 'laura@example.com', receivedAt: T0, updatedAt: T0 });
    expect(row.submission).toContain('laura@example.com');
    expect(row.payload).toBe(delivery(typeformFixture('example-payload')).compactJson);
    expect(payloadChunks).toEqual([]);
  });

  it("Typeform's test delivery is TEST: never generated or mailed", () => {
    expect(buildQueueRow(delivery(typeformFixture('test-request')), T0, FORM).row.status).toBe('TEST');
  });

  it('a payload too large for a cell is kept whole in parts, the row holding a pointer to them', () => {
    const big = JSON.parse(typeformFixture('example-payload'));
    big.form_response.answers[0].text = 'x '.repeat(CELL_LIMIT_CHARS);
    const large = delivery(JSON.stringify(big));
    const { row, payloadChunks } = buildQueueRow(large, T0, FORM);
    expect(payloadChunks.length).toBeGreaterThan(1);
    expect(payloadChunks.join('')).toBe(large.compactJson);
    expect(row.payload).not.toBe(large.compactJson);
    expect(row.payload.length).toBeLessThan(100);
    expect(row.submission.length).toBeLessThanOrEqual(CELL_LIMIT_CHARS);
  });
});
