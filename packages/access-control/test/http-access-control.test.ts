import { generateApiKey, signRequestBody, type ChatEngine } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAccessControl } from '../src/create-access-control.js';
import { createLimiter } from '../src/create-limiter.js';
import { issueApiKey } from '../src/issue-api-key.js';
import { createMemoryStore } from '../src/memory-store/index.js';
import type { LimitOverrides } from '../src/plan-limits.js';
import { hostNames, startHost, type HostName } from './hosts.js';
import { chatBody, errorOf, eventually, postChat } from './http-client.js';

/** `key` with its last character replaced by another one (an `x`, unless it already was one). */
function withLastCharacterChanged(key: string): string {
  return key.slice(0, -1) + (key.endsWith('x') ? 'y' : 'x');
}

const signingSecret = 'whsec_access_control_tests_0123';
const liveText = 'Answered by the live engine.';

/** Stands in for a live engine, so that a test can tell which engine answered. */
const liveEngine: ChatEngine = {
  async *generate() {
    yield { type: 'content', text: liveText };
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 5, completionTokens: 6, reasoningTokens: 0 } };
  },
  countPromptTokens: () => 5,
};

async function serve(host: HostName, limits: { elite?: LimitOverrides; free?: LimitOverrides } = {}) {
  const store = createMemoryStore();
  await store.createOrganisation({ name: 'elite-org', plan: 'elite', limits: limits.elite ?? {} });
  await store.createOrganisation({ name: 'free-org', plan: 'free', limits: limits.free ?? {} });
  const keys = {
    elite: await issueApiKey(store, { organisation: 'elite-org', kind: 'live' }),
    eliteTest: await issueApiKey(store, { organisation: 'elite-org', kind: 'test' }),
    free: await issueApiKey(store, { organisation: 'free-org', kind: 'live' }),
    signed: await issueApiKey(store, { organisation: 'elite-org', kind: 'live', requireSignature: true }),
  };
  const accessControl = createAccessControl({ store, limiter: createLimiter() });
  const running = await startHost[host]({ engine: liveEngine, testEngine: createReferenceEngine(), accessControl, signingSecrets: [signingSecret] });
  onTestFinished(() => running.close());
  return { store, keys, accessControl, baseUrl: running.baseUrl };
}

describe.each(hostNames)('access control over HTTP (%s)', (host) => {
  it('should answer 401 missing_api_key without a key', async () => {
    const { baseUrl } = await serve(host);
    const response = await postChat(baseUrl, undefined, chatBody());
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
  });

  it('should answer 401 invalid_api_key for a malformed, an unknown and a revoked key', async () => {
    const { baseUrl, store, keys } = await serve(host);
    await store.revokeKey(keys.free.record.id);
    for (const key of ['sk-not-ours', withLastCharacterChanged(keys.elite.key), generateApiKey('live'), keys.free.key]) {
      const response = await postChat(baseUrl, key, chatBody());
      expect(response.status).toBe(401);
      const error = await errorOf(response);
      expect(error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
      expect(error.message).not.toContain(key);
    }
  });

  it('should answer 401 invalid_signature for a bad or stale signature, and accept a good one over the raw body', async () => {
    const { baseUrl, keys } = await serve(host);
    // Spacing and non-ASCII text: the signature covers the raw bytes, not a re-serialisation.
    const raw = `{ "model": "quantum-lite",  "messages": [{"role": "user", "content": "Grüße — hi"}] }`;
    const bytes = new TextEncoder().encode(raw);
    const good = await signRequestBody(signingSecret, bytes);
    const wrongSecret = await signRequestBody('whsec_some_other_secret_0000', bytes);
    const stale = await signRequestBody(signingSecret, bytes, Math.floor(Date.now() / 1000) - 301);
    for (const signature of [wrongSecret, stale, 't=1,v1=abc', good.replace(/.$/, (last) => (last === '0' ? '1' : '0'))]) {
      const response = await postChat(baseUrl, keys.elite.key, raw, { 'x-service-signature': signature });
      expect(response.status).toBe(401);
      expect(await errorOf(response)).toMatchObject({ type: 'authentication_error', code: 'invalid_signature' });
    }
    expect((await postChat(baseUrl, keys.elite.key, raw, { 'x-service-signature': good })).status).toBe(200);
    expect((await postChat(baseUrl, keys.elite.key, raw)).status).toBe(200);
  });

  it('should require a signature from a key marked so', async () => {
    const { baseUrl, keys } = await serve(host);
    const raw = JSON.stringify(chatBody());
    const unsigned = await postChat(baseUrl, keys.signed.key, raw);
    expect(unsigned.status).toBe(401);
    expect(await errorOf(unsigned)).toMatchObject({ code: 'invalid_signature' });
    const signature = await signRequestBody(signingSecret, new TextEncoder().encode(raw));
    expect((await postChat(baseUrl, keys.signed.key, raw, { 'x-service-signature': signature })).status).toBe(200);
  });

  it('should answer 403 plan_required for a free key on quantum-pro, and serve an elite key', async () => {
    const { baseUrl, keys } = await serve(host);
    const refused = await postChat(baseUrl, keys.free.key, chatBody({ model: 'quantum-pro' }));
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ type: 'permission_error', code: 'plan_required', param: 'model' });
    expect((await postChat(baseUrl, keys.elite.key, chatBody({ model: 'quantum-pro' }))).status).toBe(200);
  });

  it('should send x-ratelimit headers on admitted responses, streamed or not', async () => {
    const { baseUrl, keys } = await serve(host, { free: { requestsPerMinute: 10 } });
    for (const stream of [false, true]) {
      const response = await postChat(baseUrl, keys.free.key, chatBody({ stream }));
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('10');
      expect(response.headers.get('x-ratelimit-remaining-requests')).toBe(stream ? '8' : '9');
      expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+(\.\d+)?s|\d+ms|1m0s)$/);
      expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
      expect(Number(response.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(100_000 - 200);
      expect(response.headers.get('x-ratelimit-limit-tokens-day')).toBe('1000000');
      await response.text();
    }
  });

  it('should answer 429 rate_limit_exceeded with retry-after, retry-after-ms and x-ratelimit headers', async () => {
    const { baseUrl, keys } = await serve(host, { elite: { requestsPerMinute: 2 } });
    for (let index = 0; index < 2; index++) expect((await postChat(baseUrl, keys.elite.key, chatBody())).status).toBe(200);
    const response = await postChat(baseUrl, keys.elite.key, chatBody());
    expect(response.status).toBe(429);
    expect(await errorOf(response)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    const retryAfter = response.headers.get('retry-after')!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(Number(response.headers.get('retry-after-ms'))).toBeGreaterThan(0);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset-requests')).not.toBeNull();
    expect(response.headers.get('x-should-retry')).toBeNull();
  });

  it('should answer 429 for a request larger than the tokens per minute, without retry', async () => {
    const { baseUrl, keys } = await serve(host, { free: { tokensPerMinute: 1000 } });
    const response = await postChat(baseUrl, keys.free.key, chatBody({ max_tokens: 2000 }));
    expect(response.status).toBe(429);
    expect(await errorOf(response)).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect((await postChat(baseUrl, keys.free.key, chatBody({ max_tokens: 500 }))).status).toBe(200);
  });

  it('should answer 429 insufficient_quota with x-should-retry: false once the day is used up', async () => {
    const { baseUrl, keys } = await serve(host, { free: { tokensPerDay: 400 } });
    const first = await postChat(baseUrl, keys.free.key, chatBody({ max_tokens: 150 }));
    expect(first.status).toBe(200);
    const response = await postChat(baseUrl, keys.free.key, chatBody({ max_tokens: 390 }));
    expect(response.status).toBe(429);
    expect(await errorOf(response)).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(response.headers.get('x-ratelimit-limit-tokens-day')).toBe('400');
  });

  it('should serve test keys from the reference engine, in their own buckets', async () => {
    const { baseUrl, keys } = await serve(host, { elite: { requestsPerMinute: 2 } });
    const live = (await (await postChat(baseUrl, keys.elite.key, chatBody())).json()) as { choices: { message: { content: string } }[] };
    expect(live.choices[0]!.message.content).toBe(liveText);
    const test = (await (await postChat(baseUrl, keys.eliteTest.key, chatBody())).json()) as { choices: { message: { content: string } }[] };
    expect(test.choices[0]!.message.content).not.toBe(liveText);
    expect((await postChat(baseUrl, keys.eliteTest.key, chatBody())).status).toBe(200);
    // The test bucket is used up; the live bucket still has one request.
    expect((await postChat(baseUrl, keys.eliteTest.key, chatBody())).status).toBe(429);
    expect((await postChat(baseUrl, keys.elite.key, chatBody())).status).toBe(200);
    expect((await postChat(baseUrl, keys.elite.key, chatBody())).status).toBe(429);
  });

  it('should check in order: authentication before validation, plan before limits', async () => {
    const { baseUrl, keys } = await serve(host, { free: { requestsPerMinute: 1 } });
    expect((await postChat(baseUrl, generateApiKey('live'), { model: 'no-such-model' })).status).toBe(401);
    expect((await postChat(baseUrl, keys.free.key, chatBody())).status).toBe(200);
    expect((await postChat(baseUrl, keys.free.key, chatBody({ model: 'quantum-pro' }))).status).toBe(403);
    expect((await postChat(baseUrl, keys.free.key, chatBody({ temperature: 9 }))).status).toBe(400);
    expect((await postChat(baseUrl, keys.free.key, chatBody())).status).toBe(429);
  });

  it('should list models for no key and a valid key (with availability by plan), and refuse a revoked key', async () => {
    const { baseUrl, keys, store } = await serve(host);
    const list = async (key?: string) => fetch(`${baseUrl}/models`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
    const anonymous = (await (await list()).json()) as { data: { id: string; available?: boolean }[] };
    expect(anonymous.data.every((model) => model.available === undefined)).toBe(true);
    const free = (await (await list(keys.free.key)).json()) as { data: { id: string; available?: boolean }[] };
    expect(free.data.find((model) => model.id === 'quantum-pro')?.available).toBe(false);
    expect(free.data.find((model) => model.id === 'quantum-lite')?.available).toBe(true);
    await store.revokeKey(keys.free.record.id);
    const revoked = await list(keys.free.key);
    expect(revoked.status).toBe(401);
    expect(await errorOf(revoked)).toMatchObject({ code: 'invalid_api_key' });
  });

  it('should record usage per key and request', async () => {
    const { baseUrl, keys, store } = await serve(host);
    const response = await postChat(baseUrl, keys.eliteTest.key, chatBody({ model: 'quantum-flash' }));
    const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    await eventually(async () => (await store.listUsage({ organisation: 'elite-org' })).length === 1);
    const [record] = await store.listUsage({ organisation: 'elite-org' });
    expect(record).toMatchObject({
      keyId: keys.eliteTest.record.id,
      model: 'quantum-flash',
      promptTokens: body.usage.prompt_tokens,
      completionTokens: body.usage.completion_tokens,
      status: 200,
      interrupted: false,
    });
  });

  it('should refuse an expired key with 401 invalid_api_key saying it expired, and models outside a key\'s list with 403 model_not_allowed', async () => {
    const { baseUrl, store } = await serve(host);
    const expired = await issueApiKey(store, { organisation: 'elite-org', kind: 'live', expiresAt: Date.now() - 1000 });
    const future = await issueApiKey(store, { organisation: 'elite-org', kind: 'live', expiresAt: Date.now() + 3_600_000 });
    const liteOnly = await issueApiKey(store, { organisation: 'elite-org', kind: 'live', allowedModels: ['quantum-lite'] });

    const refused = await postChat(baseUrl, expired.key, chatBody());
    expect(refused.status).toBe(401);
    const error = await errorOf(refused);
    expect(error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(error.message).toMatch(/expired at \d{4}-\d{2}-\d{2}T/);
    expect(error.message).not.toContain(expired.key);
    expect((await postChat(baseUrl, future.key, chatBody())).status).toBe(200);

    expect((await postChat(baseUrl, liteOnly.key, chatBody())).status).toBe(200);
    for (const stream of [false, true]) {
      const outside = await postChat(baseUrl, liteOnly.key, chatBody({ model: 'quantum-flash', stream }));
      expect(outside.status).toBe(403);
      const denied = await errorOf(outside);
      expect(denied).toMatchObject({ type: 'permission_error', code: 'model_not_allowed', param: 'model' });
      expect(denied.message).toContain("'quantum-lite'");
    }
    // An unknown model is still 404 first, and validation 400 before either.
    expect((await postChat(baseUrl, liteOnly.key, chatBody({ model: 'no-such-model' }))).status).toBe(404);
    expect((await postChat(baseUrl, liteOnly.key, chatBody({ model: 'quantum-flash', temperature: 9 }))).status).toBe(400);
  });
});
