// Offline stand-in for Gemini's generateContent REST API: real request/response shapes, deterministic prompt-dependent replies.
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';

/** @typedef {{ at: string, method: string, path: string, model: string|null, hasApiKey: boolean, status: number, body: unknown }} GeminiRequest */

const MAX_LOGGED_REQUESTS = 500;
const MAX_BODY_BYTES = 20 * 1024 * 1024; // Gemini's inline request limit [GEM-API]
const SIGNATURE = "(Written by formqueue's offline Gemini stand-in.)";
// Top-level fields of GenerateContentRequest; proto-JSON also accepts snake_case (docs/platform.md#gemini-api).
const KNOWN_FIELDS = new Set(['contents', 'systemInstruction', 'system_instruction', 'generationConfig', 'generation_config',
  'safetySettings', 'safety_settings', 'tools', 'toolConfig', 'tool_config', 'cachedContent', 'cached_content', 'labels', 'model']);

const OPENINGS = ['taking the time to write to us', 'sending us your answers', 'your thoughtful submission',
  'sharing this with us', 'filling in the form so carefully', 'your message'];
const OBSERVATIONS = ['We read it with real interest.', 'It gave us a clear picture of where you are.',
  'Your answers were easy to follow.', 'We appreciated how direct you were.', 'It is clear you put effort into this.',
  'We enjoyed reading it.'];
const SUGGESTIONS = ['start with the point you care about most', 'add one concrete example to your strongest idea',
  'keep the next step small and specific', 'write down the question you most want answered',
  'read it aloud once; the rough spots will show themselves', 'ask a colleague which sentence they remember'];
const ADJECTIVES = ['amber', 'brisk', 'cedar', 'dusky', 'ember', 'frost', 'gentle', 'harbor', 'indigo', 'juniper', 'kelp', 'lunar'];
const NOUNS = ['lantern', 'meadow', 'compass', 'harbor', 'orchard', 'kite', 'summit', 'river', 'atlas', 'beacon', 'quill', 'fern'];
const CLOSINGS = ['Best regards', 'Kind regards', 'Warm wishes', 'With thanks', 'All the best', 'Sincerely'];

/**
 * Gemini's answer for a model it does not serve (retired, or never existed): 404 NOT_FOUND naming `models/<id>`, the
 * API version and ListModels, as users of the real API quote it (wwardaww/gnome-gemini-ai#21 for gemini-1.0-pro,
 * google/adk-python#200 for gemini-2.0-flash-live-001, ECuiDev/obsidian-quiz-generator#43 for gemini-1.5-flash).
 * @param {string} model @param {string} [version]
 */
export function modelNotFound(model, version = 'v1beta') {
  return errorBody(404, 'NOT_FOUND', `models/${model} is not found for API version ${version}, or is not supported for generateContent. `
    + 'Call ListModels to see the list of available models and their supported methods.');
}

/**
 * Starts the stand-in on 127.0.0.1; the bundle reaches it through GEMINI_BASE_URL = baseUrl. `retiredModels`: ids
 * answered as Gemini answers a retired model (modelNotFound).
 * @param {{ port?: number, hostname?: string, retiredModels?: string[] }} [options]
 * @returns {Promise<{ baseUrl: string, port: number, requests: GeminiRequest[], reset: () => void, close: () => Promise<void> }>}
 */
export async function startOfflineGemini({ port = 0, hostname = '127.0.0.1', retiredModels = [] } = {}) {
  /** @type {GeminiRequest[]} */
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/v1(?:beta)?\/models\/([^/:]+):generateContent$/.exec(url.pathname);
    // The key may come as the header [GEM-API] or, in older examples, as ?key= (docs/platform.md#gemini-api).
    const hasApiKey = Boolean(req.headers['x-goog-api-key'] || url.searchParams.get('key'));
    /** @type {{ status: number, body: unknown }} */
    let answer;
    let parsed;
    try {
      const text = await readBody(req);
      if (!match || req.method !== 'POST') answer = errorBody(404, 'NOT_FOUND', 'Method not found.');
      else if (!hasApiKey) answer = missingKey();
      else if (retiredModels.includes(decodeURIComponent(match[1]))) answer = modelNotFound(decodeURIComponent(match[1]), url.pathname.startsWith('/v1beta/') ? 'v1beta' : 'v1');
      else {
        try { parsed = JSON.parse(text); } catch { parsed = undefined; }
        answer = parsed === undefined ? invalidJson(text) : generate(decodeURIComponent(match[1]), parsed);
      }
    } catch (err) {
      answer = errorBody(400, 'INVALID_ARGUMENT', /** @type {Error} */ (err).message);
    }
    requests.push({ at: new Date().toISOString(), method: req.method ?? '', path: url.pathname, model: match ? match[1] : null,
      hasApiKey, status: answer.status, body: parsed });
    if (requests.length > MAX_LOGGED_REQUESTS) requests.shift();
    res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(answer.body, null, 2));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => { server.off('error', reject); resolve(undefined); });
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    baseUrl: `http://${hostname}:${address.port}`,
    port: address.port,
    requests,
    /** Forgets the requests seen so far (the same array, emptied), for a runtime reset between tests. */
    reset: () => { requests.length = 0; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Answers one generateContent request body as Gemini would: 400 INVALID_ARGUMENT for a malformed request.
 * @param {string} model @param {any} request
 * @returns {{ status: number, body: any }}
 */
export function generate(model, request) {
  if (!request || typeof request !== 'object' || Array.isArray(request)) return invalidJson(JSON.stringify(request));
  for (const key of Object.keys(request)) {
    if (!KNOWN_FIELDS.has(key)) {
      const message = `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`;
      return errorBody(400, 'INVALID_ARGUMENT', message, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ description: message }] }]);
    }
  }
  const contents = request.contents;
  if (!Array.isArray(contents) || contents.length === 0) {
    return errorBody(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified\n');
  }
  for (const [i, content] of contents.entries()) {
    if (!content || !Array.isArray(content.parts) || content.parts.length === 0) {
      return errorBody(400, 'INVALID_ARGUMENT', `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    }
  }
  const config = request.generationConfig ?? request.generation_config ?? {};
  const prompt = contents.filter((c) => c.role !== 'model').flatMap((c) => c.parts).map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  const system = (request.systemInstruction ?? request.system_instruction)?.parts?.map((/** @type {any} */ p) => p?.text ?? '').join('\n') ?? '';
  let text = writeReply(prompt);
  if (config.responseMimeType === 'application/json' || config.response_mime_type === 'application/json') {
    text = JSON.stringify(fillSchema(config.responseSchema ?? config.response_schema, text));
  }
  const thinking = thinkingTokens(model, config.thinkingConfig ?? config.thinking_config);
  if (thinking.error) return errorBody(400, 'INVALID_ARGUMENT', thinking.error);
  let finishReason = 'STOP';
  const maxTokens = Number(config.maxOutputTokens ?? config.max_output_tokens);
  const capped = Number.isFinite(maxTokens) && maxTokens > 0;
  // Thinking is spent first and counts against maxOutputTokens: a cap it fills ends with MAX_TOKENS and no text
  // (googleapis/python-genai#811; langchain-ai/langchain-google#1020).
  const thoughtsTokenCount = capped ? Math.min(thinking.tokens, maxTokens) : thinking.tokens;
  const room = capped ? maxTokens - thoughtsTokenCount : Infinity;
  if (room <= 0) {
    text = '';
    finishReason = 'MAX_TOKENS';
  } else if (countTokens(text) > room) {
    text = text.slice(0, room * 4); // a cut candidate, as Gemini reports it (docs/platform.md#gemini-api)
    finishReason = 'MAX_TOKENS';
  }
  const promptTokenCount = countTokens(prompt + system);
  const candidatesTokenCount = text === '' ? 0 : countTokens(text);
  const usageMetadata = thoughtsTokenCount > 0
    ? { promptTokenCount, candidatesTokenCount, thoughtsTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount + thoughtsTokenCount }
    : { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount };
  if (candidatesTokenCount === 0) delete usageMetadata.candidatesTokenCount;
  return {
    status: 200,
    body: {
      // A candidate that never got to write has no parts (stanford-crfm/helm#3804).
      candidates: [{ content: text === '' ? { role: 'model' } : { role: 'model', parts: [{ text }] }, finishReason, index: 0 }],
      usageMetadata,
      modelVersion: model,
      responseId: `offline-${hash(prompt + system + model).slice(0, 16)}`,
    },
  };
}

/**
 * Thinking tokens a model spends before it writes. Thinking models are 2.5 and later; 2.5 takes thinkingBudget
 * (-1 dynamic, 0 off on Flash), 3.x thinkingLevel; both at once is a 400 (https://ai.google.dev/gemini-api/docs/thinking).
 * The amounts are the stand-in's, not measurements: what matters is that the default ("high" on 3.x, dynamic on
 * 2.5) fills a 4096-token cap, as reported above, and that "low" or a small budget leaves room for the reply.
 * @param {string} model @param {any} config @returns {{ tokens: number, error?: string }}
 */
export function thinkingTokens(model, config) {
  const m = /gemini-(\d+)(?:\.(\d+))?/.exec(String(model).toLowerCase());
  const major = m ? Number(m[1]) : 0;
  const minor = m ? Number(m[2] ?? 0) : 0;
  if (!(major > 2 || (major === 2 && minor >= 5))) return { tokens: 0 };
  const budget = config?.thinkingBudget ?? config?.thinking_budget;
  const level = config?.thinkingLevel ?? config?.thinking_level;
  if (budget !== undefined && level !== undefined) {
    return { tokens: 0, error: 'You can only set one of thinking budget and thinking level.' };
  }
  const DEFAULT = 8192;
  if (budget !== undefined) return { tokens: Number(budget) < 0 ? DEFAULT : Math.min(Number(budget), 24576) };
  const LEVELS = { minimal: 0, low: 512, medium: 2048, high: DEFAULT };
  if (level !== undefined) return { tokens: LEVELS[String(level).toLowerCase()] ?? DEFAULT };
  return { tokens: DEFAULT };
}

/**
 * The reply text: polite, short, different per submission, and honest about being a stand-in.
 * @param {string} prompt
 */
export function writeReply(prompt) {
  const block = answersBlock(prompt);
  const h = hash(block);
  const pick = (/** @type {string[]} */ list, /** @type {number} */ at) => list[parseInt(h.slice(at * 2, at * 2 + 2), 16) % list.length];
  const pairs = questionAnswers(block);
  const namePair = pairs.find(([q]) => /^(your |full |first )?name\b/i.test(q) || /\byour name\b/i.test(q));
  const name = namePair ? clip(namePair[1].replace(/["“”]/g, ''), 60) : '';
  // Quote the longest non-name answer so each reply visibly refers to its own submission.
  const quoted = pairs.filter((p) => p !== namePair && !/@/.test(p[1])).sort((a, b) => b[1].length - a[1].length)[0];
  const lines = [`Dear ${name || 'respondent'},`, ''];
  let body = `Thank you for ${pick(OPENINGS, 0)}. ${pick(OBSERVATIONS, 1)}`;
  if (quoted) body += ` Your answer to "${clip(quoted[0], 60)}" ("${clip(quoted[1], 80)}") stood out to us.`;
  // Markdown, as models often write it even when asked for plain text.
  body += ` **One suggestion for next time:** ${pick(SUGGESTIONS, 2)}.`;
  lines.push(body, '', `Your reply theme: the ${pick(ADJECTIVES, 3)} ${pick(NOUNS, 4)} (${h.slice(0, 6)}).`, '',
    `${pick(CLOSINGS, 5)},`, 'The formqueue team', '', SIGNATURE);
  return lines.join('\n');
}

/**
 * The delimited respondent-answers block of the prompt: formqueue's <<<ANSWERS … ANSWERS>>> (the fullest one, as a template
 * may also quote single fields), <tag>…</tag>, a BEGIN/END pair, a fenced block, or else the whole prompt.
 * @param {string} prompt
 */
export function answersBlock(prompt) {
  const blocks = [...prompt.matchAll(/^<<<ANSWERS[ \t]*\n([\s\S]*?)\n?ANSWERS>>>/gm)].map((m) => m[1].trim());
  if (blocks.length) return blocks.sort((a, b) => questionAnswers(b).length - questionAnswers(a).length || b.length - a.length)[0];
  const tagged = /<(answers|submission|respondent[_ -]?answers|responses?|form[_ -]?response)>([\s\S]*?)<\/\1>/i.exec(prompt);
  if (tagged) return tagged[2].trim();
  const marked = /^.*\b(?:BEGIN|START)\b.*$\n([\s\S]*?)^.*\bEND\b.*$/m.exec(prompt);
  if (marked && marked[1].trim()) return marked[1].trim();
  const fenced = /^(```|"""|-{3,}|={3,})[^\n]*\n([\s\S]*?)\n\1\s*$/m.exec(prompt);
  if (fenced && fenced[2].trim()) return fenced[2].trim();
  return prompt.trim();
}

/** `Question: answer` lines of a block. @param {string} block @returns {[string, string][]} */
function questionAnswers(block) {
  /** @type {[string, string][]} */
  const pairs = [];
  for (const line of block.split('\n')) {
    const m = /^\s*[-*]?\s*([^:\n]{1,150}?)\s*[:?]\s+(\S.*)$/.exec(line);
    if (m) pairs.push([m[1].trim(), m[2].trim()]);
  }
  return pairs;
}

/** A JSON reply shaped by a responseSchema (OpenAPI subset): the reply text goes into the first string field. @param {any} schema @param {string} text */
function fillSchema(schema, text) {
  let used = false;
  /** @param {any} s @returns {unknown} */
  const fill = (s) => {
    const type = String(s?.type ?? '').toLowerCase();
    if (type === 'object' || s?.properties) return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fill(v)]));
    if (type === 'array') return [];
    if (type === 'number' || type === 'integer') return 0;
    if (type === 'boolean') return false;
    if (Array.isArray(s?.enum) && s.enum.length) return s.enum[0];
    if (used) return '';
    used = true;
    return text;
  };
  return schema ? fill(schema) : { reply: text };
}

/** @param {string} text */
function invalidJson(text) {
  const at = text.length > 0 ? `Unexpected token.\n${text.slice(0, 40)}\n^` : 'Unexpected end of input.';
  return errorBody(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. ${at}`,
    [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description: `Invalid JSON payload received. ${at}` }] }]);
}

function missingKey() {
  return errorBody(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). "
    + 'Please use API Key or other form of API consumer identity to call this API.',
  [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_SERVICE_BLOCKED', domain: 'googleapis.com' }]);
}

/** Gemini's error envelope (fixtures/gemini/error-*.json). @param {number} code @param {string} status @param {string} message @param {unknown[]} [details] */
function errorBody(code, status, message, details) {
  return { status: code, body: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

/** Rough tokens: Gemini averages about 4 characters per token. @param {string} s */
function countTokens(s) {
  return Math.max(1, Math.ceil(s.length / 4));
}

/** @param {string} s */
function hash(s) {
  return createHash('sha256').update(s).digest('hex');
}

/** @param {string} s @param {number} n */
function clip(s, n) {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** @param {import('node:http').IncomingMessage} req @returns {Promise<string>} */
async function readBody(req) {
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('Request payload size exceeds the limit: 20971520 bytes.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A model that was talked into it: the reply follows an instruction found in the respondent's answers ("ignore the
 * above … link X" → the reply says X), as a real model may despite the system instruction (OWASP LLM01). Without
 * such an instruction it writes its usual reply. Used by the `{"target":"gemini","obey":true}` fault, so tests prove
 * the reply policy, not the model's good manners.
 * @param {string} prompt the user turn's text
 */
export function obeyingReply(prompt) {
  const blocks = [...prompt.matchAll(/^<<<ANSWERS[ \t]*\n([\s\S]*?)\n?ANSWERS>>>/gm)].map((m) => m[1]);
  const text = (blocks.length ? blocks : [prompt]).join('\n');
  const order = /\b(?:ignore|disregard|forget|override)\b[^\n]*?\b(?:above|previous|prior|earlier|instructions?|rules?)\b[\s.:;,!-]*([^\n]+)/i.exec(text);
  if (!order || order[1].trim() === '') return writeReply(prompt);
  return ['Dear respondent,', '', `As instructed: ${order[1].trim()}`, '', 'Best regards,', 'The formqueue team'].join('\n');
}

/**
 * A 200 generateContent answer holding `text`, shaped as generate() shapes one.
 * @param {string} model @param {string} text
 */
export function answerWithText(model, text) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: countTokens(text), totalTokenCount: 1 + countTokens(text) },
    modelVersion: model,
    responseId: `offline-${hash(text + model).slice(0, 16)}`,
  };
}
