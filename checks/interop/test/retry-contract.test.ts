/**
 * The retry contract of decisions §5: a 429 `rate_limit_exceeded` is retried after
 * `retry-after-ms` / `retry-after`, a 429 `insufficient_quota` (`x-should-retry: false`) is
 * not. Requests are counted server side, at the limiter. The tests wait on purpose (retry
 * delays, a window in which no retry may come), so they run concurrently, each with its own key.
 */
import { generateApiKey } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { aiSdkClient, aiSdkVersions } from './support/ai-sdk-client.js';
import { createCompatRecorder } from './support/compat-recorder.js';
import { question } from './support/fixtures.js';
import { createChatOpenAI, langchainClient, langchainVersion } from './support/langchain-client.js';
import { openaiClients } from './support/openai-clients.js';
import { retryAfterHeaders, startRetryHost, type RetryHost, type RetryScenario } from './support/retry-host.js';

const compat = createCompatRecorder('retry-contract');
let host: RetryHost;
const messages = [{ role: 'user', content: question }];
const retryAfterMs = Number(retryAfterHeaders['retry-after-ms']);
const retryAfterSeconds = Number(retryAfterHeaders['retry-after']);

/** Server side, between the refused and the retried request: the client waited retry-after-ms, not retry-after. */
function expectRetriedAfterRetryAfterMs(key: string) {
  const gap = host.retryGap(key)!;
  expect(gap).toBeGreaterThanOrEqual(retryAfterMs - 20);
  expect(gap).toBeLessThan(retryAfterSeconds * 1000 - 500);
}

beforeAll(async () => {
  host = await startRetryHost();
});

afterAll(async () => {
  compat.flush();
  await host?.close();
});

function keyFor(scenario: RetryScenario): string {
  const key = generateApiKey('live');
  host.assign(key, scenario);
  return key;
}

/** Resolves with the rejection, or fails the test if the call succeeded. */
async function caught(promise: PromiseLike<unknown>): Promise<any> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error('Expected the call to fail, and it succeeded.');
    },
    (error: unknown) => error,
  );
}

/** Long enough for any client's first retry without a retry-after hint to have arrived. */
const noRetryWindowMs = 1_500;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.concurrent.each(openaiClients)('openai@$version (installed as $packageName)', (sdk) => {
  it('should retry a 429 rate_limit_exceeded once, after retry-after-ms, and succeed', async (context) => {
    const key = keyFor('rate-limited-once');
    const client = sdk.create({ apiKey: key, baseURL: host.baseUrl }); // default maxRetries: 2
    const completion = await client.chat.completions.create({ model: 'quantum-lite', messages });
    expect(completion.choices[0].message.content.length).toBeGreaterThan(0);
    expect(host.admissions(key)).toBe(2);
    // retry-after-ms (1 s) wins over retry-after (4 s) and over the SDK's own backoff (≤ 0.5 s).
    expectRetriedAfterRetryAfterMs(key);
    compat.prove({ client: 'openai', version: sdk.version, format: 'any', feature: '429 retry', outcome: 'works', detail: 'retried once after `retry-after-ms`' }, context);
  });

  it('should not retry a 429 insufficient_quota (x-should-retry: false)', async (context) => {
    const key = keyFor('quota-exhausted');
    const client = sdk.create({ apiKey: key, baseURL: host.baseUrl });
    const error = await caught(client.chat.completions.create({ model: 'quantum-lite', messages }));
    expect(error).toBeInstanceOf(sdk.errors.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    await settle(noRetryWindowMs);
    expect(host.admissions(key)).toBe(1);
    compat.prove({ client: 'openai', version: sdk.version, format: 'any', feature: '429 no retry', outcome: 'works', detail: 'not retried (`x-should-retry: false`)' }, context);
  });
});

describe.concurrent.each(aiSdkVersions)(`${aiSdkClient} $version`, (sdk) => {
  const { APICallError, generateText, RetryError } = sdk.ai;
  const aiSdkVersion = sdk.version;
  const createQuantumProvider = sdk.createProvider;
  const OpenAICompatibleChatLanguageModel = sdk.ChatLanguageModel;

  it('should retry a 429 rate_limit_exceeded once, after retry-after-ms, and succeed', async (context) => {
    const key = keyFor('rate-limited-once');
    const provider = createQuantumProvider({ baseURL: host.baseUrl, apiKey: key });
    const result = await generateText({ model: provider('quantum-lite'), prompt: question }); // default maxRetries: 2
    expect(result.text.length).toBeGreaterThan(0);
    expect(host.admissions(key)).toBe(2);
    // retry-after-ms (1 s), not retry-after (4 s) nor the SDK's own first backoff (2 s).
    expectRetriedAfterRetryAfterMs(key);
    compat.prove({ client: aiSdkClient, version: aiSdkVersion, format: 'any', feature: '429 retry', outcome: 'works', detail: 'retried once after `retry-after-ms`' }, context);
  });

  it('should retry a 429 insufficient_quota by default: x-should-retry is not read', async (context) => {
    const key = keyFor('quota-exhausted');
    const provider = createQuantumProvider({ baseURL: host.baseUrl, apiKey: key });
    // maxRetries 1 keeps the test short (the SDK's first backoff is 2 s); the default is 2.
    const error = await caught(generateText({ model: provider('quantum-lite'), prompt: question, maxRetries: 1 }));
    expect(RetryError.isInstance(error)).toBe(true);
    expect(error.errors).toHaveLength(2);
    expect(APICallError.isInstance(error.lastError)).toBe(true);
    expect(error.lastError).toMatchObject({ statusCode: 429, isRetryable: true });
    expect(error.lastError.responseHeaders['x-should-retry']).toBe('false');
    expect(host.admissions(key)).toBe(2);
    compat.prove({
      client: aiSdkClient,
      version: aiSdkVersion,
      format: 'any',
      feature: '429 no retry',
      outcome: 'fails',
      detail: '`insufficient_quota` is retried (every 429 counts as retryable); build `OpenAICompatibleChatLanguageModel` with an `errorStructure.isRetryable` that reads `x-should-retry` (`createOpenAICompatible` does not pass it on), or set `maxRetries: 0`',
    }, context);
  });

  it('should not retry a 429 insufficient_quota once errorStructure.isRetryable reads x-should-retry', async (context) => {
    const key = keyFor('quota-exhausted');
    // createOpenAICompatible() does not pass errorStructure on: build the chat model itself.
    const model = new OpenAICompatibleChatLanguageModel('quantum-lite', {
      provider: 'quantum.chat',
      url: ({ path }) => `${host.baseUrl}${path}`,
      headers: () => ({ Authorization: `Bearer ${key}` }),
      errorStructure: {
        errorSchema: z.object({ error: z.object({ message: z.string(), code: z.string().nullish() }) }),
        errorToMessage: (data: { error: { message: string } }) => data.error.message,
        isRetryable: (response: Response) =>
          response.headers.get('x-should-retry') !== 'false' && (response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500),
      },
    });
    const error = await caught(generateText({ model, prompt: question }));
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 429, isRetryable: false });
    expect(error.data).toMatchObject({ error: { code: 'insufficient_quota' } });
    await settle(noRetryWindowMs);
    expect(host.admissions(key)).toBe(1);
    compat.prove({
      client: aiSdkClient,
      version: aiSdkVersion,
      format: 'any',
      feature: '429 no retry (isRetryable)',
      outcome: 'works',
      detail: 'not retried with an `OpenAICompatibleChatLanguageModel` whose `errorStructure.isRetryable` reads `x-should-retry`',
    }, context);
  });
});

describe.concurrent(`${langchainClient} ${langchainVersion}`, () => {
  it('should retry a 429 rate_limit_exceeded once, after retry-after, and succeed', async (context) => {
    const key = keyFor('rate-limited-once');
    const chat = createChatOpenAI({ model: 'quantum-lite', apiKey: key, baseURL: host.baseUrl }); // default maxRetries: 6
    const message = await chat.invoke(question);
    expect(String(message.content).length).toBeGreaterThan(0);
    expect(host.admissions(key)).toBe(2);
    // LangChain reads retry-after (4 s), not retry-after-ms.
    expect(host.retryGap(key)).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - 20);
    compat.prove({ client: langchainClient, version: langchainVersion, format: 'any', feature: '429 retry', outcome: 'works', detail: 'retried once after `retry-after` (it does not read `retry-after-ms`)' }, context);
  });

  it('should not retry a 429 insufficient_quota', async (context) => {
    const key = keyFor('quota-exhausted');
    const chat = createChatOpenAI({ model: 'quantum-lite', apiKey: key, baseURL: host.baseUrl });
    const error = await caught(chat.invoke(question));
    expect(error).toMatchObject({ name: 'InsufficientQuotaError' });
    await settle(noRetryWindowMs);
    expect(host.admissions(key)).toBe(1);
    compat.prove({ client: langchainClient, version: langchainVersion, format: 'any', feature: '429 no retry', outcome: 'works', detail: '`InsufficientQuotaError`, not retried' }, context);
  });
});
