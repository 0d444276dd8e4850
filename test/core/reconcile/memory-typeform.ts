// Typeform in memory for the reconciliation's tests: responses newest first, `before` paging, scripted answers, a clock that sleeps.
import type { ReconcileDeps, StoreAnswer, TypeformAnswer } from '../../../src/core/reconcile/typeform-reconcile';

export const NOW = Date.UTC(2026, 11, 1, 6, 0, 0);

export interface MemoryTypeformOptions {
  /** The first this many requests answer 429 with Retry-After 2 s. */
  rateLimited?: number;
  /** Every request answers this status (with an authentication error body). */
  status?: number;
  /** The form's webhooks. */
  hooks?: unknown[];
  /** Answers a request before the defaults do (undefined: the defaults answer). */
  answer?: (path: string, query: Record<string, string>) => TypeformAnswer | undefined;
}

/** Every request is logged with its time; each takes 10 ms; sleeping moves the clock on and is logged too. */
export function memoryTypeform(responses: { token: string }[], options: MemoryTypeformOptions = {}) {
  const requests: { path: string; query: Record<string, string>; at: number }[] = [];
  const sleeps: number[] = [];
  let now = NOW;
  let limited = options.rateLimited ?? 0;
  const deps = (overrides: Partial<ReconcileDeps> = {}) => {
    const stored: string[] = [];
    const base: ReconcileDeps = {
      clock: { now: () => now },
      sleep: (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      http: {
        get(path, query): TypeformAnswer {
          requests.push({ path, query, at: now });
          now += 10;
          const scripted = options.answer?.(path, query);
          if (scripted) return scripted;
          if (limited > 0) {
            limited -= 1;
            return { status: 429, text: '{}', retryAfterSeconds: 2 };
          }
          if (options.status) return { status: options.status, text: '{"code":"AUTHENTICATION_FAILED"}', retryAfterSeconds: null };
          if (path.endsWith('/webhooks')) return { status: 200, text: JSON.stringify({ items: options.hooks ?? [{ url: 'u', enabled: true }] }), retryAfterSeconds: null };
          if (!path.endsWith('/responses')) return { status: 200, text: JSON.stringify({ title: 'F', fields: [] }), retryAfterSeconds: null };
          const start = query.before ? responses.findIndex((r) => r.token === query.before) + 1 : 0;
          const items = responses.slice(start, start + Number(query.page_size));
          return { status: 200, text: JSON.stringify({ total_items: responses.length, items }), retryAfterSeconds: null };
        },
      },
      formIds: ['F1'],
      places: { knownTokens: () => new Set(['known1']), inRejected: (token) => token === 'rejected1' },
      store: (body): StoreAnswer => {
        stored.push(body);
        return { ok: true, queued: true };
      },
      webAppUrl: '',
      deadline: NOW + 60_000,
      ...overrides,
    };
    return { deps: base, stored };
  };
  return { requests, sleeps, deps };
}
