// A Typeform delivery's body with one short-text answer, for core tests that read answers or submitted_at from a payload.

/** A delivery (event e1, form F1, token t1) whose one answer (ref `name`) is `name`; with `submittedAt` when given. */
export const payloadOf = (name: string, submittedAt?: unknown): string =>
  JSON.stringify({
    event_id: 'e1',
    event_type: 'form_response',
    form_response: {
      form_id: 'F1',
      token: 't1',
      ...(submittedAt === undefined ? {} : { submitted_at: submittedAt }),
      definition: { fields: [{ id: 'a', ref: 'name', type: 'short_text', title: 'Name' }] },
      answers: [{ type: 'text', text: name, field: { id: 'a', type: 'short_text', ref: 'name' } }],
    },
  });
