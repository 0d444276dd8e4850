// The manifest the build writes: no Gmail read access by default; --reconcile-sent-mail adds the advanced service and gmail.readonly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GMAIL_ADVANCED_SERVICE, GMAIL_READONLY, manifestFor } from '../../scripts/manifest.mjs';

const committed = JSON.parse(readFileSync(new URL('../../appsscript.json', import.meta.url), 'utf8'));
const gmailRead = (scopes: string[]) => scopes.filter((scope) => /gmail|mail\.google\.com/.test(scope));

describe('the built manifest', () => {
  it('by default asks for no Gmail read scope and enables no advanced service', () => {
    const built = manifestFor(committed);
    expect(gmailRead(built.oauthScopes)).toEqual([]);
    expect(built.dependencies?.enabledAdvancedServices ?? []).toEqual([]);
    expect(built).toEqual(committed);
  });

  it('with RECONCILE_SENT_MAIL adds gmail.readonly and the Gmail advanced service, keeping every other scope', () => {
    const built = manifestFor(committed, { reconcileSentMail: true });
    expect(gmailRead(built.oauthScopes)).toEqual([GMAIL_READONLY]);
    expect(built.oauthScopes.slice(0, -1)).toEqual(committed.oauthScopes);
    expect(built.dependencies.enabledAdvancedServices).toEqual([GMAIL_ADVANCED_SERVICE]);
    expect(manifestFor(built, { reconcileSentMail: true })).toEqual(built);
  });
});
