// GeminiClient port: every request of a round at once through UrlFetchApp.fetchAll, outcomes in request order.
import type { GeminiClient, GeminiOutcome } from '../core/ports';

export function createGeminiClient(baseUrl: string, apiKey: string): GeminiClient {
  return {
    generateAll(requests) {
      if (requests.length === 0) return [];
      const calls = requests.map((request) => ({
        url: `${baseUrl}/v1beta/models/${encodeURIComponent(request.model)}:generateContent`,
        method: 'post' as const,
        contentType: 'application/json',
        // The key travels in a header, never in the URL, so it cannot leak through logged URLs (see docs/platform.md#gemini-api).
        headers: { 'x-goog-api-key': apiKey },
        payload: JSON.stringify(request.body),
        muteHttpExceptions: true,
      }));
      try {
        return UrlFetchApp.fetchAll(calls).map((response): GeminiOutcome => ({
          kind: 'http',
          status: response.getResponseCode(),
          body: response.getContentText(),
        }));
      } catch (error) {
        // A transport failure (timeout, DNS) throws for the whole batch: no request can be trusted to have
        // produced a reply, and Gemini has no outside effect, so every row is simply retried later.
        const message = String((error as Error)?.message ?? error);
        return requests.map((): GeminiOutcome => ({ kind: 'transport', message }));
      }
    },
  };
}
