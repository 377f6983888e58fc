import { generateApiKey, parseApiKey, QuantumChatError, type ParsedApiKey } from '@quantum-chat/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccessControl } from './create-access-control.js';
import { createLimiter } from './create-limiter.js';
import { issueApiKey } from './issue-api-key.js';
import { createMemoryStore } from './memory-store/index.js';
import type { ServiceStore } from './service-store/index.js';
import { createSqliteStore } from './sqlite-store/index.js';

const parse = (key: string): ParsedApiKey => parseApiKey(key)!;
const demand = { requestId: 'req_test', model: 'quantum-lite', promptTokens: 20, maxTokens: 100 };

const sqliteDirectory = mkdtempSync(join(tmpdir(), 'quantum-chat-admission-'));
afterAll(() => rmSync(sqliteDirectory, { recursive: true, force: true }));

async function setup(limits = {}, store: ServiceStore = createMemoryStore()) {
  await store.createOrganisation({ name: 'acme', plan: 'free', limits });
  const live = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
  const test = await issueApiKey(store, { organisation: 'acme', kind: 'test' });
  const accessControl = createAccessControl({ store, limiter: createLimiter() });
  return { store, accessControl, live, test };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  return QuantumChatError.isInstance(error) ? error.code : String(error);
}

describe('createAccessControl', () => {
  it('should resolve a stored key to its organisation, plan and kind, showing only prefix and last 4', async () => {
    const { accessControl, live } = await setup();
    const principal = await accessControl.authenticate(parse(live.key));
    expect(principal).toEqual({ keyId: `qc_live_…${live.key.slice(-4)}`, organisationId: 'acme', plan: 'free', kind: 'live' });
  });

  it('should refuse unknown and revoked keys with invalid_api_key', async () => {
    const { accessControl, store, live } = await setup();
    expect(await codeOf(accessControl.authenticate(parse(generateApiKey('live'))))).toBe('invalid_api_key');
    await store.revokeKey(live.record.id);
    const error = await accessControl.authenticate(parse(live.key)).catch((thrown: QuantumChatError) => thrown);
    expect(error).toMatchObject({ code: 'invalid_api_key', status: 401 });
    expect((error as Error).message).not.toContain(live.key);
  });

  it('should carry requireSignature to the principal', async () => {
    const { accessControl, store } = await setup();
    const signed = await issueApiKey(store, { organisation: 'acme', kind: 'live', requireSignature: true });
    expect((await accessControl.authenticate(parse(signed.key))).requireSignature).toBe(true);
  });

  it('should admit with x-ratelimit headers and record usage on settle', async () => {
    const { accessControl, store, live } = await setup({ requestsPerMinute: 5 });
    const principal = await accessControl.authenticate(parse(live.key));
    const admission = await accessControl.admit(principal, demand);
    expect(admission.headers).toMatchObject({
      'x-ratelimit-limit-requests': '5',
      'x-ratelimit-remaining-requests': '4',
      'x-ratelimit-limit-tokens': '100000',
      'x-ratelimit-remaining-tokens': String(100_000 - 120),
      'x-ratelimit-limit-tokens-day': '1000000',
    });
    await admission.settle({ promptTokens: 20, completionTokens: 7, status: 200, interrupted: false });
    await admission.settle({ promptTokens: 20, completionTokens: 7, status: 200, interrupted: false });
    await accessControl.ledger.flush();
    expect(await store.listUsage({ organisation: 'acme' })).toMatchObject([
      { keyId: live.record.id, model: 'quantum-lite', promptTokens: 20, completionTokens: 7, status: 200, interrupted: false },
    ]);
    expect((await accessControl.limiter.read('acme:live', accessControl.limitsOf(principal))).tokens?.used).toBe(27);
  });

  it('should write down which API a request came through: the Responses API when its settle says so, chat completions otherwise', async () => {
    const { accessControl, store, live } = await setup();
    const principal = await accessControl.authenticate(parse(live.key));
    await (await accessControl.admit(principal, { ...demand, requestId: 'req_chat' })).settle({ promptTokens: 20, completionTokens: 7, status: 200, interrupted: false });
    const responses = await accessControl.admit(principal, { ...demand, requestId: 'req_responses' });
    await responses.settle({ promptTokens: 20, completionTokens: 7, status: 200, interrupted: false, api: 'responses' });
    await accessControl.ledger.flush();
    expect((await store.listUsage({ organisation: 'acme' })).map(({ requestId, api }) => [requestId, api])).toEqual([
      ['req_chat', 'chat.completions'],
      ['req_responses', 'responses'],
    ]);
  });

  it.each([
    ['memory', () => createMemoryStore()],
    ['SQLite', () => createSqliteStore(join(sqliteDirectory, 'running-api.sqlite'))],
  ])('should write a running Responses request down as one from its start, so an abandoned one still says so (%s store)', async (_name, openStore) => {
    const { accessControl, store, live } = await setup({}, openStore());
    const principal = await accessControl.authenticate(parse(live.key));
    await accessControl.admit(principal, { ...demand, requestId: 'req_running', api: 'responses' });
    // The instance writes its running row down, then dies before it settles.
    await accessControl.ledger.flush();
    expect((await store.listUsage({ organisation: 'acme' })).map(({ requestId, settled, api }) => [requestId, settled, api])).toEqual([['req_running', false, 'responses']]);
    expect(await store.settleAbandonedUsage(Date.now() + 60_000)).toBe(1);
    expect((await store.listUsage({ organisation: 'acme' })).map(({ requestId, abandoned, api }) => [requestId, abandoned, api])).toEqual([['req_running', true, 'responses']]);
    await accessControl.ledger.close();
    await store.close();
  });

  it('should answer 429 rate_limit_exceeded with retry-after once the requests are used up', async () => {
    const { accessControl, live } = await setup({ requestsPerMinute: 1 });
    const principal = await accessControl.authenticate(parse(live.key));
    await accessControl.admit(principal, demand);
    const error = (await accessControl.admit(principal, demand).catch((thrown: unknown) => thrown)) as QuantumChatError;
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', status: 429, type: 'rate_limit_error' });
    expect(Number(error.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(error.headers['retry-after']))).toBe(true);
    expect(Number(error.headers['retry-after-ms'])).toBeGreaterThan(0);
    expect(error.headers['x-ratelimit-remaining-requests']).toBe('0');
  });

  it('should count a request that generates nothing against the requests per minute, never against tokens', async () => {
    const { accessControl, live } = await setup({ requestsPerMinute: 2, tokensPerMinute: 1000 });
    const principal = await accessControl.authenticate(parse(live.key));
    const first = await accessControl.admitRequest(principal);
    expect(first.headers['x-ratelimit-remaining-requests']).toBe('1');
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('1000');
    await accessControl.admitRequest(principal);
    const error = (await accessControl.admitRequest(principal).catch((thrown: unknown) => thrown)) as QuantumChatError;
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    // The chat request is refused too: the resumes used the minute's requests.
    expect(await codeOf(accessControl.admit(principal, demand))).toBe('rate_limit_exceeded');
  });

  it('should answer 429 insufficient_quota with x-should-retry: false when the day is used up', async () => {
    const { accessControl, live } = await setup({ tokensPerDay: 150 });
    const principal = await accessControl.authenticate(parse(live.key));
    await (await accessControl.admit(principal, demand)).settle({ promptTokens: 20, completionTokens: 80, status: 200, interrupted: false });
    // The day is settled to the tokens used when the usage row is written.
    await accessControl.ledger.flush();
    const error = (await accessControl.admit(principal, demand).catch((thrown: unknown) => thrown)) as QuantumChatError;
    expect(error).toMatchObject({ code: 'insufficient_quota', status: 429, type: 'insufficient_quota' });
    expect(error.headers['x-should-retry']).toBe('false');
    expect(error.headers['x-ratelimit-remaining-tokens-day']).toBe('50');
  });

  it('should count test keys in their own bucket', async () => {
    const { accessControl, live, test } = await setup({ requestsPerMinute: 1 });
    const testPrincipal = await accessControl.authenticate(parse(test.key));
    await accessControl.admit(testPrincipal, demand);
    expect(await codeOf(accessControl.admit(testPrincipal, demand))).toBe('rate_limit_exceeded');
    const livePrincipal = await accessControl.authenticate(parse(live.key));
    expect(accessControl.bucketOf(livePrincipal)).toBe('acme:live');
    await expect(accessControl.admit(livePrincipal, demand)).resolves.toBeDefined();
  });

  it('should see limit changes at the next authentication', async () => {
    const { accessControl, store, live } = await setup();
    await store.updateOrganisation('acme', { plan: 'elite', limits: { requestsPerMinute: 9 } });
    const principal = await accessControl.authenticate(parse(live.key));
    expect(principal.plan).toBe('elite');
    expect(accessControl.limitsOf(principal)).toEqual({ requestsPerMinute: 9, tokensPerMinute: 2_000_000, tokensPerDay: null });
  });

  it("should count a key's own limits in a bucket of its own, within its organisation's, and send the tighter headers", async () => {
    const { accessControl, store, live } = await setup({ requestsPerMinute: 5 });
    const limited = await issueApiKey(store, { organisation: 'acme', kind: 'live', limits: { requestsPerMinute: 2 } });
    const principal = await accessControl.authenticate(parse(limited.key));
    const first = await accessControl.admit(principal, demand);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-limit-tokens': '100000' });
    await accessControl.admit(principal, demand);
    const refused = (await accessControl.admit(principal, demand).catch((thrown: unknown) => thrown)) as QuantumChatError;
    expect(refused).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(refused.message).toContain(`key qc_live_…${limited.key.slice(-4)}`);
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '0' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The refused request was not counted against the organisation: 2 of its 5 are used.
    const other = await accessControl.admit(await accessControl.authenticate(parse(live.key)), demand);
    expect(other.headers).toMatchObject({ 'x-ratelimit-limit-requests': '5', 'x-ratelimit-remaining-requests': '2' });
  });

  it("should refuse with the organisation's limit when it is the tighter one, and give the key's reservation back", async () => {
    const { accessControl, store, live } = await setup({ requestsPerMinute: 1 });
    const limited = await issueApiKey(store, { organisation: 'acme', kind: 'live', limits: { requestsPerMinute: 10, tokensPerMinute: 1000 } });
    await accessControl.admit(await accessControl.authenticate(parse(live.key)), demand);
    const principal = await accessControl.authenticate(parse(limited.key));
    const refused = (await accessControl.admit(principal, demand).catch((thrown: unknown) => thrown)) as QuantumChatError;
    expect(refused).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(refused.message).toContain("organisation 'acme'");
    const keyBucket = await accessControl.limiter.read(`key:${limited.record.id}`, { requestsPerMinute: 10, tokensPerMinute: 1000, tokensPerDay: null });
    expect(keyBucket.requests?.used).toBe(0);
    expect(keyBucket.tokens?.used).toBe(0);
  });

  it("should settle a key's own tokens per day in the store, and refuse past them with insufficient_quota", async () => {
    const { accessControl, store } = await setup();
    const limited = await issueApiKey(store, { organisation: 'acme', kind: 'live', limits: { tokensPerDay: 200 } });
    const principal = await accessControl.authenticate(parse(limited.key));
    const admission = await accessControl.admit(principal, demand);
    expect(admission.headers).toMatchObject({ 'x-ratelimit-limit-tokens-day': '200', 'x-ratelimit-remaining-tokens-day': '80' });
    await admission.settle({ promptTokens: 20, completionTokens: 10, status: 200, interrupted: false });
    const second = await accessControl.admit(principal, demand);
    expect(second.headers['x-ratelimit-remaining-tokens-day']).toBe(String(200 - 30 - 120));
    await second.settle({ promptTokens: 20, completionTokens: 100, status: 200, interrupted: false });
    const refused = (await accessControl.admit(principal, demand).catch((thrown: unknown) => thrown)) as QuantumChatError;
    expect(refused).toMatchObject({ code: 'insufficient_quota' });
    expect(refused.headers['x-ratelimit-remaining-tokens-day']).toBe('50');
  });
});
