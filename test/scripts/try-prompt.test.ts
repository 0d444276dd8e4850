// npm run try-prompt's core: a sample delivery through the form's prompt, past a retired model, printed with tokens and cost.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, modelNotFound } from '../../emulator/offline-gemini.mjs';
import { tryPrompt } from '../../scripts/try-prompt/preview-core';

const sample = readFileSync(new URL('../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8');
const offline = (retired: string[]) => async (model: string, body: unknown) => {
  const answer = retired.includes(model) ? modelNotFound(model) : generate(model, body);
  return { kind: 'http' as const, status: answer.status, body: JSON.stringify(answer.body) };
};

describe('try-prompt', () => {
  it("prints the form's reply with the model, the tokens and the estimated cost, asking the next model after a 404", async () => {
    const asked: string[] = [];
    const ask = offline(['gemini-2.0-flash']);
    const result = await tryPrompt({
      formId: '', sample, configRows: [], prompt: '', props: { GEMINI_MODEL: 'gemini-2.0-flash, gemini-3.5-flash' },
      ask: (model, body) => { asked.push(model); return ask(model, body); },
    });
    expect(result.ok).toBe(true);
    expect(asked).toEqual(['gemini-2.0-flash', 'gemini-3.5-flash']);
    expect(result.text).toContain('Model gemini-2.0-flash: not found (404)');
    expect(result.text).toContain('Dear Mina Okafor');
    expect(result.text).toMatch(/Model: gemini-3\.5-flash\nTokens: prompt \d+, output \d+, thinking \d+\nEstimated cost: \$0\.\d{5}/);
  });

  it("uses the form's Config row and a prompt given instead of it", async () => {
    const form = JSON.parse(sample).form_response.form_id;
    const rows = [['form_id', 'enabled', 'prompt', 'model'], [form, 'TRUE', 'Reply in one line to {{answers}}', 'gemini-3.5-flash-lite']];
    const bodies: any[] = [];
    const ask = offline([]);
    const result = await tryPrompt({ formId: form, sample, configRows: rows, prompt: '', props: {}, ask: (model, body) => { bodies.push({ model, body }); return ask(model, body); } });
    expect(result.ok).toBe(true);
    expect(bodies[0].model).toBe('gemini-3.5-flash-lite');
    // The form's prompt is the system instruction; the answers are quoted as data in the message (issue #28).
    expect(bodies[0].body.systemInstruction.parts[0].text).toContain('Reply in one line to ');
    expect(bodies[0].body.contents[0].parts[0].text).toContain('<<<ANSWERS');
    await tryPrompt({ formId: form, sample, configRows: rows, prompt: 'Other {{answers}}', props: {}, ask: (model, body) => { bodies.push({ model, body }); return ask(model, body); } });
    expect(bodies[1].body.systemInstruction.parts[0].text).toContain('Other ');
    expect(bodies[1].body.systemInstruction.parts[0].text).not.toContain('Reply in one line');
  });

  it('a sample that is not a Typeform delivery is refused with the reason', async () => {
    const result = await tryPrompt({ formId: 'x', sample: '{"a":1}', configRows: [], prompt: '', props: {}, ask: offline([]) });
    expect(result.ok).toBe(false);
    expect(result.text).toContain('not a Typeform delivery');
  });
});
