// GeminiClient port: every request of a round at once through UrlFetchApp.fetchAll, outcomes in request order.
import type { GeminiClient, GeminiOutcome, GeminiRequest } from '../core/domain/ports';

export function createGeminiClient(baseUrl: string, apiKey: string): GeminiClient {
  const call = (request: GeminiRequest) => ({
    url: `${baseUrl}/v1beta/models/${encodeURIComponent(request.model)}:generateContent`,
    method: 'post' as const,
    contentType: 'application/json',
    // The key travels in a header, never in the URL, so it cannot leak through logged URLs (docs/platform.md#gemini-api).
    headers: { 'x-goog-api-key': apiKey },
    payload: JSON.stringify(request.body),
    muteHttpExceptions: true,
  });
  const outcome = (response: GoogleAppsScript.URL_Fetch.HTTPResponse): GeminiOutcome => ({
    kind: 'http',
    status: response.getResponseCode(),
    body: response.getContentText(),
  });
  return {
    generateAll(requests) {
      if (requests.length === 0) return [];
      // A transport failure (timeout, DNS) throws for the whole batch; core asks again one request at a time.
      if (requests.length === 1) {
        const { url, ...params } = call(requests[0]);
        return [outcome(UrlFetchApp.fetch(url, params))];
      }
      return UrlFetchApp.fetchAll(requests.map(call)).map(outcome);
    },
  };
}
