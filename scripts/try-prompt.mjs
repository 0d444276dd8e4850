// npm run try-prompt -- --form ID --sample FILE [--config FILE] [--prompt FILE] [--model LIST]: a form's prompt on a sample, printed with tokens and cost.
// With GEMINI_API_KEY in the environment the real Gemini API is asked (one call per model tried); otherwise the offline stand-in,
// which answers 404 as for a retired model for the ids in --retired.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { generate, modelNotFound } from '../emulator/offline-gemini.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: { form: { type: 'string', default: '' }, sample: { type: 'string' }, config: { type: 'string' }, prompt: { type: 'string' }, model: { type: 'string' }, retired: { type: 'string', default: '' } },
});
if (!values.sample) {
  console.error('usage: npm run try-prompt -- --form ID --sample delivery.json [--config config.csv|config.json] [--prompt prompt.txt] [--model "a, b"] [--retired "a"]');
  process.exit(2);
}

/** A CSV export of the Config sheet (quoted cells, "" for a quote, newlines inside quotes) or a JSON array of rows. */
function readRows(path) {
  const text = readFileSync(path, 'utf8');
  if (text.trimStart().startsWith('[')) return JSON.parse(text);
  const rows = [[]];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { rows[rows.length - 1].push(cell); cell = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      rows[rows.length - 1].push(cell); cell = ''; rows.push([]);
    } else cell += c;
  }
  rows[rows.length - 1].push(cell);
  return rows.filter((row) => row.some((value) => value !== ''));
}

const key = process.env.GEMINI_API_KEY ?? '';
const baseUrl = (process.env.GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '');
async function ask(model, body) {
  if (key === '') {
    const retired = values.retired.split(',').map((id) => id.trim());
    const answer = retired.includes(model) ? modelNotFound(model) : generate(model, body);
    return { kind: 'http', status: answer.status, body: JSON.stringify(answer.body) };
  }
  try {
    const response = await fetch(`${baseUrl}/v1beta/models/${encodeURIComponent(model)}:generateContent`, {
      method: 'POST',
      // The key in a header, as the product sends it (never in the URL).
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify(body),
    });
    return { kind: 'http', status: response.status, body: await response.text() };
  } catch (error) {
    return { kind: 'transport', message: String(error?.message ?? error) };
  }
}

const bundled = await build({ entryPoints: [`${root}scripts/try-prompt/preview-core.ts`], bundle: true, platform: 'node', format: 'esm', write: false });
const { tryPrompt } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
const props = { GEMINI_MODEL: values.model ?? process.env.GEMINI_MODEL ?? '', GEMINI_PRICES: process.env.GEMINI_PRICES ?? '' };
const result = await tryPrompt({
  formId: values.form,
  sample: readFileSync(values.sample, 'utf8'),
  configRows: values.config ? readRows(values.config) : [],
  prompt: values.prompt ? readFileSync(values.prompt, 'utf8') : '',
  props,
  ask,
});
console.log(result.text);
console.log(key === '' ? '\n(offline stand-in: set GEMINI_API_KEY to ask the real Gemini API)' : '\n(asked the real Gemini API)');
process.exit(result.ok ? 0 : 1);
