import { generateApiKey, type AccessControl } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  createChatClient,
  NotFoundError,
  PermissionDeniedError,
  QuantumChatApiError,
} from '../src/index.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

const eliteKey = generateApiKey('live');
const freeKey = generateApiKey('live');

/** Any well-formed key is accepted; `freeKey` is on the free plan. */
const accessControl: AccessControl = {
  authenticate: async (key) => ({ keyId: key.display, organisationId: 'org', plan: key.key === freeKey ? 'free' : 'elite', kind: key.kind }),
};

let server: QuantumServer;
beforeAll(async () => {
  server = await startQuantumServer({ accessControl });
});
afterAll(() => server.close());

const messages = [{ role: 'user' as const, content: 'Hi' }];

/** The error a call rejects with (streams are collected). */
async function failureOf(call: () => Promise<unknown>): Promise<QuantumChatApiError> {
  const failure = await call().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!QuantumChatApiError.isInstance(failure)) throw new Error(`expected a QuantumChatApiError, got ${String(failure)}`);
  return failure;
}

describe('errors from the real server', () => {
  for (const mode of ['create', 'stream'] as const) {
    const send = (apiKey: string | undefined, request: Record<string, unknown>) => {
      const client = createChatClient({ baseUrl: server.baseUrl, apiKey, maxRetries: 0 });
      const body = { model: 'quantum-lite', messages, ...request };
      return mode === 'create' ? client.chat.completions.create(body) : client.chat.completions.stream(body).collect();
    };

    it(`should reject a missing key with AuthenticationError [${mode}]`, async () => {
      const error = await failureOf(() => send(undefined, {}));
      expect(AuthenticationError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: 401, type: 'authentication_error', code: 'missing_api_key' });
      expect(error.requestId).toEqual(expect.any(String));
      expect(error.headers['x-request-id']).toBe(error.requestId);
    });

    it(`should reject quantum-pro on the free plan with PermissionDeniedError [${mode}]`, async () => {
      const error = await failureOf(() => send(freeKey, { model: 'quantum-pro' }));
      expect(PermissionDeniedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 403, type: 'permission_error', code: 'plan_required', param: 'model' });
    });

    it(`should reject an unknown model with NotFoundError [${mode}]`, async () => {
      const error = await failureOf(() => send(eliteKey, { model: 'quantum-ultra' }));
      expect(NotFoundError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    });

    it(`should reject a bad parameter with BadRequestError naming it [${mode}]`, async () => {
      const error = await failureOf(() => send(eliteKey, { temperature: 5 }));
      expect(BadRequestError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'temperature' });
      expect(error.code).toEqual(expect.any(String));
      expect(error.message).toMatch(/^400 /);
    });
  }

  it('should serve quantum-pro to the elite plan', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey: eliteKey });
    const completion = await client.chat.completions.create({ model: 'quantum-pro', messages });
    expect(completion.model).toBe('quantum-pro');
  });

  it('should reject an unknown model id in models.retrieve with NotFoundError', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey: eliteKey });
    const error = await failureOf(() => client.models.retrieve('quantum-ultra'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe('model_not_found');
  });

  it('should reject a present but invalid key on models.list with AuthenticationError', async () => {
    const client = createChatClient({ baseUrl: server.baseUrl, apiKey: 'qc_live_not-a-key' });
    const error = await failureOf(() => client.models.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('invalid_api_key');
  });
});
