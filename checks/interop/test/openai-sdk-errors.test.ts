/**
 * The `openai` SDK's error classes against the real server's error envelopes (decisions §5),
 * and a mid-stream failure (an upstream that dies) surfacing as an error in every stream format.
 */
import { generateApiKey } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompatRecorder, type CompatCell, type FormatId } from './support/compat-recorder.js';
import { partialAnswer } from './support/failing-upstream.js';
import { question, streamFormats } from './support/fixtures.js';
import { failingModel, startInteropServer, type InteropServer } from './support/interop-server.js';
import { openaiClients, type OpenAIClientVersion, type OpenAILike } from './support/openai-clients.js';

const compat = createCompatRecorder('openai-sdk-errors');
let server: InteropServer;
const keys = { live: '', free: '', quota: '', rateLimited: '' };
const messages = [{ role: 'user', content: question }];

beforeAll(async () => {
  server = await startInteropServer();
  [keys.live, keys.free, keys.quota, keys.rateLimited] = await Promise.all([
    server.createKey({ organisation: 'default', kind: 'live' }),
    server.createKey({ organisation: 'free-org', plan: 'free', kind: 'live' }),
    server.createKey({ organisation: 'broke', plan: 'elite', kind: 'test', limits: { tokensPerDay: 1 } }),
    server.createKey({ organisation: 'busy', plan: 'elite', kind: 'test', limits: { requestsPerMinute: 1 } }),
  ]);
  // Spend the busy organisation's one request of this minute: every test below then gets a 429.
  const first = await fetch(`${server.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys.rateLimited}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-lite', messages, max_tokens: 8 }),
  });
  expect(first.status).toBe(200);
  await first.text();
});

afterAll(async () => {
  compat.flush();
  await server?.close();
});

function cell(sdk: OpenAIClientVersion, format: FormatId, fields: Omit<CompatCell, 'client' | 'version' | 'format'>): CompatCell {
  return { client: 'openai', version: sdk.version, format, ...fields };
}

async function caught(promise: PromiseLike<unknown>): Promise<any> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error('Expected the call to fail, and it succeeded.');
    },
    (error: unknown) => error,
  );
}

const prefixes = [
  { path: '/v1', format: 'quantum' },
  { path: '/compat/v1', format: 'openai-path' },
] as const;

describe.concurrent.each(openaiClients)('openai@$version (installed as $packageName)', (sdk) => {
  const client = (path: string, apiKey: string, extra: { defaultHeaders?: Record<string, string | null>; maxRetries?: number; defaultQuery?: Record<string, string> } = {}): OpenAILike =>
    sdk.create({ apiKey, baseURL: `${server.origin}${path}`, maxRetries: 0, ...extra });

  describe.each(prefixes)('$path', ({ path }) => {
    it('should throw AuthenticationError (401) without a key and with an unknown key, streaming or not', async (context) => {
      for (const stream of [false, true]) {
        const missing = await caught(client(path, 'unused', { defaultHeaders: { Authorization: null } }).chat.completions.create({ model: 'quantum-lite', messages, stream }));
        expect(missing).toBeInstanceOf(sdk.errors.AuthenticationError);
        expect(missing).toMatchObject({ status: 401, code: 'missing_api_key', type: 'authentication_error' });
        const unknown = await caught(client(path, generateApiKey('live')).chat.completions.create({ model: 'quantum-lite', messages, stream }));
        expect(unknown).toBeInstanceOf(sdk.errors.AuthenticationError);
        expect(unknown).toMatchObject({ status: 401, code: 'invalid_api_key' });
        expect(unknown.headers.get?.('x-request-id') ?? unknown.headers['x-request-id']).toMatch(/^req_/);
      }
      compat.prove(cell(sdk, 'any', { feature: '401', outcome: 'works', detail: '`AuthenticationError`' }), context);
    });

    it('should throw BadRequestError (400) naming the parameter', async (context) => {
      const error = await caught(client(path, server.testKey).chat.completions.create({ model: 'quantum-lite', messages, temperature: 5 }));
      expect(error).toBeInstanceOf(sdk.errors.BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'temperature', type: 'invalid_request_error' });
      expect(typeof error.code).toBe('string');
      compat.prove(cell(sdk, 'any', { feature: '400', outcome: 'works', detail: '`BadRequestError` with `param`' }), context);
    });

    it('should throw NotFoundError (404 model_not_found) for an unknown model', async (context) => {
      for (const stream of [false, true]) {
        const error = await caught(client(path, server.testKey).chat.completions.create({ model: 'quantum-nonexistent', messages, stream }));
        expect(error).toBeInstanceOf(sdk.errors.NotFoundError);
        expect(error).toMatchObject({ status: 404, code: 'model_not_found' });
      }
      compat.prove(cell(sdk, 'any', { feature: '404', outcome: 'works', detail: '`NotFoundError`' }), context);
    });

    it('should throw PermissionDeniedError (403 plan_required) for quantum-pro on a free plan', async (context) => {
      const error = await caught(client(path, keys.free).chat.completions.create({ model: 'quantum-pro', messages }));
      expect(error).toBeInstanceOf(sdk.errors.PermissionDeniedError);
      expect(error).toMatchObject({ status: 403, code: 'plan_required', type: 'permission_error' });
      compat.prove(cell(sdk, 'any', { feature: '403', outcome: 'works', detail: '`PermissionDeniedError`' }), context);
    });

    it('should throw RateLimitError (429 rate_limit_exceeded) with retry-after and retry-after-ms', async (context) => {
      const error = await caught(client(path, keys.rateLimited).chat.completions.create({ model: 'quantum-lite', messages }));
      expect(error).toBeInstanceOf(sdk.errors.RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
      const header = (name: string) => (error.headers.get?.(name) ?? error.headers[name]) as string | null;
      expect(Number(header('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(header('retry-after')).toMatch(/^\d+$/);
      expect(Number(header('retry-after-ms'))).toBeGreaterThan(0);
      compat.prove(cell(sdk, 'any', { feature: '429 rate_limit_exceeded', outcome: 'works', detail: '`RateLimitError`' }), context);
    });

    it('should throw RateLimitError (429 insufficient_quota) without retrying, by x-should-retry: false', async (context) => {
      // A unique query string tells this test's requests apart in the server's request log.
      const probe = `quota-${sdk.packageName}-${path.length}`;
      // The SDK's default: up to 2 retries. x-should-retry: false must stop them.
      const error = await caught(client(path, keys.quota, { maxRetries: 2, defaultQuery: { probe } }).chat.completions.create({ model: 'quantum-lite', messages }));
      expect(error).toBeInstanceOf(sdk.errors.RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' });
      expect(error.headers.get?.('x-should-retry') ?? error.headers['x-should-retry']).toBe('false');
      // Long enough for a retry (the SDK's first backoff is at most 0.5 s) and for the log to flush.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(server.countRequests('POST', `${path}/chat/completions?probe=${probe}`)).toBe(1);
      compat.prove(cell(sdk, 'any', { feature: '429 insufficient_quota', outcome: 'works', detail: '`RateLimitError`' }), context);
    });

    it('should throw InternalServerError (502 upstream_error) when the engine fails before the first byte', async (context) => {
      const error = await caught(client(path, keys.live).chat.completions.create({ model: failingModel, messages }));
      expect(error).toBeInstanceOf(sdk.errors.InternalServerError);
      expect(error).toMatchObject({ status: 502, code: 'upstream_error', type: 'server_error' });
      compat.prove(cell(sdk, 'any', { feature: '5xx', outcome: 'works', detail: '`InternalServerError`' }), context);
    });
  });

  describe.each(streamFormats)('mid-stream error, $label', (format) => {
    it('should throw APIError from the raw loop after the partial content, never finish', async (context) => {
      const stream = await client(format.path, keys.live, { defaultHeaders: format.headers }).chat.completions.create({ model: failingModel, messages, stream: true });
      const items: any[] = [];
      const error = await caught(
        (async () => {
          for await (const item of stream) items.push(item);
        })(),
      );
      expect(error).toBeInstanceOf(sdk.errors.APIError);
      expect(error.error ?? error).toMatchObject({ code: 'upstream_error' });
      // Chunks, or { event, data } wrappers for pre-5.10.3 clients on named events.
      const chunks = items.map((item) => (item.choices ? item : item.data));
      expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe(partialAnswer);
      expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
      compat.prove(cell(sdk, format.id, { feature: 'mid-stream error', outcome: 'works', detail: 'loop throws `APIError`' }), context);
    });

    it('should reject finalChatCompletion() of the stream() helper', async (context) => {
      const helper = sdk.streamHelper(client(format.path, keys.live, { defaultHeaders: format.headers }), { model: failingModel, messages });
      helper.on('error', () => {});
      const error = await caught(helper.finalChatCompletion());
      if (sdk.wrapsNamedEvents && format.id === 'quantum') {
        // The first wrapper already breaks the helper, before the error frame arrives.
        expect(error).toBeInstanceOf(sdk.errors.OpenAIError);
        expect(error.message).toMatch(/chunk\.choices is not iterable/);
      } else {
        expect(error).toBeInstanceOf(sdk.errors.APIError);
        expect(error.error ?? error).toMatchObject({ code: 'upstream_error' });
      }
      compat.prove(cell(sdk, format.id, { feature: 'mid-stream error (helper)', outcome: 'works', detail: '`finalChatCompletion()` rejects' }), context);
    });
  });
});
