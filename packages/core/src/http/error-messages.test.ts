import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../auth/parse-api-key.js';
import type { ChatEngine } from '../engine/chat-engine.js';
import { createChatHandler } from './create-chat-handler.js';

const key = generateApiKey('live');
const engine: ChatEngine = {
  async *generate() {
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 0, reasoningTokens: 0 } };
  },
};
const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine });

async function errorOf(response: Response): Promise<{ status: number; message: string; code: string; param: string | null }> {
  const { error } = (await response.json()) as { error: { message: string; code: string; param: string | null } };
  return { status: response.status, ...error };
}

function chat(model: string): Request {
  return new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('error messages', () => {
  it('should list the valid model ids and suggest the nearest for an unknown model', async () => {
    const error = await errorOf(await handler.fetch(chat('quantum-lte')));
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect(error.message).toContain("Did you mean 'quantum-lite'?");
    expect(error.message).toContain('quantum-lite, quantum-flash, quantum-reasoner, quantum-pro');
    const retrieved = await errorOf(await handler.fetch(new Request('http://127.0.0.1/v1/models/Quantum-Reasoner')));
    expect(retrieved.message).toContain("Did you mean 'quantum-reasoner'?");
  });

  it('should not suggest a model that is nothing like the one asked for', async () => {
    const error = await errorOf(await handler.fetch(chat('gpt-4o')));
    expect(error.message).not.toContain('Did you mean');
    expect(error.message).toContain('quantum-lite, quantum-flash, quantum-reasoner, quantum-pro');
  });

  it('should name the full path, its /v1 prefix included', async () => {
    const unknown = await errorOf(await handler.fetch(new Request('http://127.0.0.1/v1/completions', { method: 'POST' })));
    expect(unknown).toMatchObject({ status: 404, code: 'unknown_url' });
    expect(unknown.message).toContain('POST /v1/completions');
    const wrongMethod = await errorOf(await handler.fetch(new Request('http://127.0.0.1/v1/models', { method: 'DELETE' })));
    expect(wrongMethod).toMatchObject({ status: 405, code: 'method_not_allowed' });
    expect(wrongMethod.message).toContain('/v1/models');
  });

  it('should serve the Responses API, and name an unknown path below it as any other', async () => {
    const missingKey = await errorOf(await handler.fetch(new Request('http://127.0.0.1/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })));
    expect(missingKey).toMatchObject({ status: 401, code: 'missing_api_key' });
    const error = await errorOf(await handler.fetch(new Request('http://127.0.0.1/v1/responses/resp_1/unknown', { method: 'GET' })));
    expect(error).toMatchObject({ status: 404, code: 'unknown_url' });
    expect(error.message).toContain('GET /v1/responses/resp_1/unknown');
    const wrongMethod = await errorOf(await handler.fetch(new Request('http://127.0.0.1/v1/responses', { method: 'GET' })));
    expect(wrongMethod).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('should serve an OpenAPI document naming its own mount path as the server URL', async () => {
    const compat = await (await handler.fetch(new Request('http://127.0.0.1/compat/v1/openapi.json'))).json();
    expect(compat.servers).toEqual([{ url: '/compat/v1' }]);
    const plain = await (await handler.fetch(new Request('http://127.0.0.1/v1/openapi.json'))).json();
    expect(plain.servers).toEqual([{ url: '/v1' }]);
  });
});
