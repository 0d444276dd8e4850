// The offline Gemini stand-in speaks generateContent's real shapes (docs/platform.md#gemini-api) and writes a deterministic reply per submission.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from './support';

interface GeminiModule {
  startOfflineGemini(o?: { port?: number }): Promise<{ baseUrl: string; requests: { model: string | null; hasApiKey: boolean; status: number }[]; close(): Promise<void> }>;
}
const { startOfflineGemini } = await load<GeminiModule>('emulator/offline-gemini.mjs');
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/gemini/${name}`, import.meta.url), 'utf8'));

let gemini: Awaited<ReturnType<GeminiModule['startOfflineGemini']>>;
beforeAll(async () => { gemini = await startOfflineGemini({ port: 0 }); });
afterAll(async () => { await gemini.close(); });

const submission = (name: string, essay: string) =>
  `Write a short feedback email.\n<answers>\nYour name: ${name}\nEmail for your feedback: x@example.com\nPaste your essay: ${essay}\n</answers>`;
const ask = async (body: unknown, { key = 'offline-stand-in', model = 'gemini-2.5-flash', raw = false } = {}) => {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key) headers['x-goog-api-key'] = key;
  const res = await fetch(`${gemini.baseUrl}/v1beta/models/${model}:generateContent`, {
    method: 'POST', headers, body: raw ? String(body) : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};
const prompt = (text: string, extra: Record<string, unknown> = {}) => ({ contents: [{ role: 'user', parts: [{ text }] }], ...extra });

describe('offline Gemini', () => {
  it('answers with generateContent\'s response shape', async () => {
    const { status, json } = await ask(prompt(submission('Mina Park', 'Caching trades freshness for speed.')));
    expect(status).toBe(200);
    expect(json).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: expect.any(String) }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number), thoughtsTokenCount: expect.any(Number), totalTokenCount: expect.any(Number) },
      modelVersion: 'gemini-2.5-flash',
      responseId: expect.stringMatching(/^offline-/),
    });
    const u = json.usageMetadata;
    expect(u.totalTokenCount).toBe(u.promptTokenCount + u.candidatesTokenCount + u.thoughtsTokenCount);
  });

  it('a model that does not think reports no thinking tokens', async () => {
    const { json } = await ask(prompt(submission('Mina', 'essay')), { model: 'gemini-2.0-flash' });
    expect(Object.keys(json.usageMetadata)).toEqual(['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount']);
  });

  it('a thinking model whose thinking fills maxOutputTokens ends with MAX_TOKENS and a candidate without parts', async () => {
    for (const model of ['gemini-2.5-flash', 'gemini-3.5-flash']) {
      const { json } = await ask(prompt(submission('Mina', 'essay'), { generationConfig: { maxOutputTokens: 4096 } }), { model });
      expect(json.candidates[0]).toEqual({ content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 });
      expect(json.usageMetadata.thoughtsTokenCount).toBe(4096);
      expect(Object.keys(json.candidates[0].content)).toEqual(Object.keys(fixture('max-tokens-thinking.json').candidates[0].content));
    }
  });

  it('thinkingLevel on 3.x and thinkingBudget on 2.5 leave room for the reply; both at once is a 400', async () => {
    const cap = { maxOutputTokens: 4096 };
    const low = await ask(prompt(submission('Mina', 'essay'), { generationConfig: { ...cap, thinkingConfig: { thinkingLevel: 'low' } } }), { model: 'gemini-3.5-flash' });
    expect(low.json.candidates[0].finishReason).toBe('STOP');
    const budget = await ask(prompt(submission('Mina', 'essay'), { generationConfig: { ...cap, thinkingConfig: { thinkingBudget: 1024 } } }));
    expect(budget.json.candidates[0].finishReason).toBe('STOP');
    expect(budget.json.usageMetadata.thoughtsTokenCount).toBe(1024);
    const both = await ask(prompt('hi', { generationConfig: { thinkingConfig: { thinkingLevel: 'low', thinkingBudget: 10 } } }));
    expect(both.status).toBe(400);
  });

  it('writes Markdown, as models do even when asked for plain text', async () => {
    const text: string = (await ask(prompt(submission('Mina', 'essay')))).json.candidates[0].content.parts[0].text;
    expect(text).toContain('**One suggestion for next time:**');
  });

  it('writes a polite reply that quotes the respondent\'s name and says it is a stand-in', async () => {
    const text: string = (await ask(prompt(submission('Mina Park', 'Caching trades freshness for speed.')))).json.candidates[0].content.parts[0].text;
    expect(text).toMatch(/^Dear Mina Park,/);
    expect(text).toContain('Caching trades freshness for speed.');
    expect(text).toContain("(Written by formqueue's offline Gemini stand-in.)");
  });

  it('is deterministic: the same prompt gets the same reply', async () => {
    const body = prompt(submission('Jonas', 'A short essay.'));
    expect((await ask(body)).json).toEqual((await ask(body)).json);
  });

  it('different submissions get visibly different replies', async () => {
    const texts = await Promise.all(['Ana', 'Bo', 'Cy'].map(async (n, i) =>
      (await ask(prompt(submission(n, `Essay number ${i} about topic ${n}.`)))).json.candidates[0].content.parts[0].text as string));
    expect(new Set(texts).size).toBe(3);
    // beyond the name and the quote, the hash-derived theme differs too
    const themes = texts.map((t) => /Your reply theme: (.*)\./.exec(t)?.[1]);
    expect(new Set(themes).size).toBe(3);
  });

  it('reads formqueue\'s own <<<ANSWERS block, preferring the full submission over a quoted single field', async () => {
    const text = (await ask(prompt('Greet <<<ANSWERS\nignored\nANSWERS>>> warmly.\n<<<ANSWERS\nJonas\nANSWERS>>>\n\n'
      + '<<<ANSWERS\nYour name: Jonas Berg\nPaste your essay: I forgot my address.\nANSWERS>>>'))).json.candidates[0].content.parts[0].text;
    expect(text).toMatch(/^Dear Jonas Berg,/);
    expect(text).toContain('"Paste your essay" ("I forgot my address.")');
  });

  it('finds the answers inside BEGIN/END markers and greets generically without a name', async () => {
    const text = (await ask(prompt('Reply kindly.\n--- BEGIN ANSWERS ---\nFavourite colour: teal\n--- END ANSWERS ---\nBe brief.'))).json.candidates[0].content.parts[0].text;
    expect(text).toMatch(/^Dear respondent,/);
    expect(text).toContain('"Favourite colour" ("teal")');
  });

  it('a missing x-goog-api-key gets Gemini\'s 403 PERMISSION_DENIED body', async () => {
    const { status, json } = await ask(prompt('hi'), { key: '' });
    expect(status).toBe(403);
    expect(json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining('API Key') });
  });

  it('malformed requests get 400 INVALID_ARGUMENT', async () => {
    for (const body of ['{not json', JSON.stringify({}), JSON.stringify({ contents: [{ parts: [] }] }), JSON.stringify({ contents: [], foo: 1 })]) {
      const { status, json } = await ask(body, { raw: true });
      expect(status).toBe(400);
      expect(json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.any(String) });
    }
  });

  it('an unknown path is 404 NOT_FOUND in Gemini\'s error envelope', async () => {
    const res = await fetch(`${gemini.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'k' }, body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 404, message: 'Method not found.', status: 'NOT_FOUND' } });
  });

  it('error bodies have the envelope of the recorded Gemini errors', async () => {
    const real = fixture('error-503.json');
    const { json } = await ask(prompt('hi'), { key: '' });
    expect(Object.keys(json)).toEqual(Object.keys(real));
    expect(Object.keys(json.error).slice(0, 3)).toEqual(Object.keys(real.error));
  });

  it('cuts the reply at maxOutputTokens with finishReason MAX_TOKENS', async () => {
    const { json } = await ask(prompt(submission('Mina', 'essay'), { generationConfig: { maxOutputTokens: 5, thinkingConfig: { thinkingBudget: 0 } } }));
    expect(json.candidates[0].finishReason).toBe('MAX_TOKENS');
    expect(json.candidates[0].content.parts[0].text).toHaveLength(20);
  });

  it('answers JSON when asked for application/json, filling the schema\'s string field', async () => {
    const schema = { type: 'OBJECT', properties: { reply: { type: 'STRING' }, confident: { type: 'BOOLEAN' } } };
    const { json } = await ask(prompt(submission('Mina', 'essay'), { generationConfig: { responseMimeType: 'application/json', responseSchema: schema } }));
    const parsed = JSON.parse(json.candidates[0].content.parts[0].text);
    expect(parsed.reply).toMatch(/^Dear Mina,/);
    expect(parsed.confident).toBe(false);
  });

  it('records the requests it served, without the key', async () => {
    const last = gemini.requests.at(-1);
    expect(last).toMatchObject({ model: 'gemini-2.5-flash', hasApiKey: true, status: 200 });
    expect(JSON.stringify(gemini.requests)).not.toContain('offline-stand-in');
  });
});
