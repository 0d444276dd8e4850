// Contract tests for the Gmail advanced service: enabled by the manifest, list/get over the effective user's Sent mail,
// search operators, scopes, index lag, a deleted Sent copy and API errors; and the crash-before-send mail fault.
import { afterEach, describe, expect, it } from 'vitest';
import { bundleWithManifest, disposeHost, makeHost } from './helpers';

let host: any;
afterEach(() => disposeHost(host));

const run = async (fn: string, args: unknown[] = [], opts: Record<string, unknown> = { kind: 'trigger' }) => {
  const e = await host.run(fn, args, opts);
  if (e.status !== 'ok') throw new Error(`${fn}: ${e.status} ${e.error?.message}`);
  return e.value;
};

/** The probe bundle with another manifest. */
const withManifest = (manifest: object): string => bundleWithManifest('gmail-api', manifest);

describe('Gmail advanced service', () => {
  // https://developers.google.com/apps-script/guides/services/advanced: an advanced service must be turned on
  // (dependencies.enabledAdvancedServices) before the script can use it.
  it('exists only when the manifest enables it', async () => {
    host = makeHost('gmail-api');
    expect(await run('has')).toBe(true);
    await host.dispose();
    host = makeHost('gmail-api', { bundleDir: withManifest({ timeZone: 'Etc/UTC' }) });
    expect(await run('has')).toBe(false);
  });

  it('lists the effective user\'s sent mail newest first, only ids, and finds it by phrase, to: and after:<epoch seconds>', async () => {
    host = makeHost('gmail-api');
    const before = Math.floor(host.now() / 1000);
    await run('send', ['a@example.com', 'Reply FQ-AAAAAA', 'Hello']);
    await run('send', ['b@example.com', 'Reply', 'Your ref: FQ-BBBBBB']);
    await run('send', ['c@example.com', 'Other', 'x'], { kind: 'menu', user: 'staff@example.com' });
    const all = (await run('list', ['in:sent'])).ok;
    expect(all).toEqual({ resultSizeEstimate: 2, messages: [{ id: 'msg-2', threadId: 'thread-msg-2' }, { id: 'msg-1', threadId: 'thread-msg-1' }] });
    expect((await run('list', ['in:sent "FQ-BBBBBB"'])).ok.messages.map((m: any) => m.id)).toEqual(['msg-2']);
    expect((await run('list', ['in:sent to:a@example.com'])).ok.messages.map((m: any) => m.id)).toEqual(['msg-1']);
    expect((await run('list', [`in:sent after:${before}`])).ok.resultSizeEstimate).toBe(2);
    expect((await run('list', [`in:sent after:${before + 3600}`])).ok).toEqual({ resultSizeEstimate: 0 });
  });

  it('pages with maxResults and nextPageToken', async () => {
    host = makeHost('gmail-api');
    for (const n of [1, 2, 3]) await run('send', ['a@example.com', `s${n}`, 'b']);
    const first = (await run('list', ['in:sent', 2])).ok;
    expect(first.messages.map((m: any) => m.id)).toEqual(['msg-3', 'msg-2']);
    const second = (await run('list', ['in:sent', 2, first.nextPageToken])).ok;
    expect(second.messages.map((m: any) => m.id)).toEqual(['msg-1']);
    expect(second.nextPageToken).toBeUndefined();
  });

  it('gets a message with headers (metadata, narrowed by metadataHeaders) and its body (full)', async () => {
    host = makeHost('gmail-api');
    await run('send', ['a@example.com', 'Reply FQ-AAAAAA', 'Hello there']);
    const meta = (await run('get', ['msg-1', 'metadata', ['To', 'Subject']])).ok;
    expect(meta.payload.headers).toEqual([{ name: 'To', value: 'a@example.com' }, { name: 'Subject', value: 'Reply FQ-AAAAAA' }]);
    expect(meta.payload.body).toBeUndefined();
    expect(Number(meta.internalDate)).toBe(Date.parse(host.outbox[0].sentAt));
    expect(meta.labelIds).toEqual(['SENT']);
    expect(await run('body', ['msg-1'])).toBe('Hello there');
    expect((await run('get', ['msg-9', 'full'])).error).toBe('GoogleJsonResponseException: API call to gmail.users.messages.get failed with error: Requested entity was not found.');
  });

  // users.messages.list "Authorization scopes": mail.google.com, gmail.modify, gmail.readonly or gmail.metadata, and q
  // cannot be used with gmail.metadata.
  it('without a Gmail read scope in oauthScopes the call fails with the API\'s insufficient-scopes error', async () => {
    host = makeHost('gmail-api', { bundleDir: withManifest({
      oauthScopes: ['https://www.googleapis.com/auth/script.send_mail'],
      dependencies: { enabledAdvancedServices: [{ userSymbol: 'Gmail', serviceId: 'gmail', version: 'v1' }] },
    }) });
    expect((await run('list', ['in:sent'])).error).toBe(
      'GoogleJsonResponseException: API call to gmail.users.messages.list failed with error: Request had insufficient authentication scopes.');
  });

  it('a lag fault hides a copy from search for lagMs after it was sent; get by id still finds it', async () => {
    host = makeHost('gmail-api');
    host.faults.add({ target: 'gmail', lagMs: 10 * 60_000 });
    await run('send', ['a@example.com', 'Reply FQ-AAAAAA', 'x']);
    expect((await run('list', ['in:sent "FQ-AAAAAA"'])).ok).toEqual({ resultSizeEstimate: 0 });
    expect((await run('get', ['msg-1', 'minimal'])).ok.id).toBe('msg-1');
    host.advanceClock(10 * 60_000);
    expect((await run('list', ['in:sent "FQ-AAAAAA"'])).ok.resultSizeEstimate).toBe(1);
  });

  it('a Sent copy a person deleted is not found, though the mail went', async () => {
    host = makeHost('gmail-api');
    await run('send', ['a@example.com', 'Reply FQ-AAAAAA', 'x']);
    expect(host.deleteSentCopy('msg-1').id).toBe('msg-1');
    expect((await run('list', ['in:sent'])).ok).toEqual({ resultSizeEstimate: 0 });
    expect((await run('get', ['msg-1', 'full'])).error).toMatch(/Requested entity was not found/);
    expect(host.outbox).toHaveLength(1);
  });

  it('an error fault fails the next call with the API\'s wording', async () => {
    host = makeHost('gmail-api');
    host.faults.add({ target: 'gmail', error: 'Backend Error', method: 'list', count: 1 });
    expect((await run('list', ['in:sent'])).error).toBe('GoogleJsonResponseException: API call to gmail.users.messages.list failed with error: Backend Error');
    expect((await run('list', ['in:sent'])).ok).toEqual({ resultSizeEstimate: 0 });
  });
});

describe('mail crashBeforeSend', () => {
  it('kills the execution inside the send: nothing reaches the outbox, the fault is used up', async () => {
    host = makeHost('gmail-api');
    host.faults.add({ target: 'mail', crashBeforeSend: 1 });
    const e = await host.run('send', ['a@example.com', 's', 'b'], { kind: 'trigger' });
    expect(e.status).toBe('crash');
    expect(e.error.message).toMatch(/crashBeforeSend/);
    expect(host.outbox).toEqual([]);
    expect(host.faults.list()).toEqual([]);
    expect(await run('send', ['a@example.com', 's', 'b'])).toBe('sent');
  });
});
