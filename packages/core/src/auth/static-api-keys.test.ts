import { describe, expect, it } from 'vitest';
import type { ChatEngine } from '../engine/chat-engine.js';
import { createChatHandler } from '../http/create-chat-handler.js';
import { generateApiKey } from './parse-api-key.js';
import { insecureAcceptAnyApiKey, staticApiKeys } from './static-api-keys.js';

const engine: ChatEngine = {
  async *generate() {
    yield { type: 'content', text: 'Hi' };
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
  },
};

function chat(key: string, model = 'quantum-lite'): Request {
  return new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('choosing who may call the API', () => {
  it('should refuse to build a handler that did not say who may call it', () => {
    // Plain JavaScript (or a cast) gets past the type, not past the check.
    const withoutAccessControl = { engine } as Parameters<typeof createChatHandler>[0];
    expect(() => createChatHandler(withoutAccessControl)).toThrow(TypeError);
    expect(() => createChatHandler(withoutAccessControl)).toThrow(/accessControl.*staticApiKeys.*createAccessControl.*insecureAcceptAnyApiKey/su);
    // The message says where the helpers come from, and that the adapters need the choice too.
    expect(() => createChatHandler(withoutAccessControl)).toThrow(/createExpressRouter and fastifyQuantumChat.*'@quantum-chat\/core'/su);
    // Something that is not an access control (a typo, a missing import) is caught at startup as well.
    for (const accessControl of [null, {}, { authenticate: 'yes' }]) {
      expect(() => createChatHandler({ engine, accessControl } as unknown as Parameters<typeof createChatHandler>[0])).toThrow(TypeError);
    }
  });

  it('should admit only the listed keys with staticApiKeys', async () => {
    const listed = generateApiKey('live');
    const handler = createChatHandler({ engine, accessControl: staticApiKeys([listed]) });
    expect((await handler.fetch(chat(listed))).status).toBe(200);
    const stranger = await handler.fetch(chat(generateApiKey('live')));
    expect(stranger.status).toBe(401);
    expect((await stranger.json()).error.code).toBe('invalid_api_key');
  });

  it('should give static keys a plan and an organisation, and tell test keys apart', async () => {
    const free = generateApiKey('live');
    const test = generateApiKey('test');
    const accessControl = staticApiKeys([{ key: free, plan: 'free', organisationId: 'acme' }, test]);
    const handler = createChatHandler({ engine, accessControl });
    expect((await handler.fetch(chat(free, 'quantum-pro'))).status).toBe(403);
    expect((await handler.fetch(chat(test, 'quantum-pro'))).status).toBe(200);
    const models = await (await handler.fetch(new Request('http://127.0.0.1/v1/models', { headers: { authorization: `Bearer ${free}` } }))).json();
    expect(models.data.at(-1)).toMatchObject({ id: 'quantum-pro', available: false });
  });

  it('should refuse a list that cannot work, at startup rather than on the first request', () => {
    expect(() => staticApiKeys([])).toThrow(/at least one key/u);
    expect(() => staticApiKeys([undefined as unknown as string])).toThrow(/index 0.*environment variable/su);
    expect(() => staticApiKeys(['sk-not-ours'])).toThrow(/index 0 is not a well-formed/u);
    // The message never repeats the key itself.
    expect(() => staticApiKeys(['qc_live_secretsecretsecret'])).not.toThrow(/secretsecret/u);
  });

  it('should accept any well-formed key only through the insecure opt-in', async () => {
    const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() });
    expect((await handler.fetch(chat(generateApiKey('live'), 'quantum-pro'))).status).toBe(200);
    expect((await handler.fetch(chat('qc_live_malformed'))).status).toBe(401);
    const free = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey({ plan: 'free' }) });
    expect((await free.fetch(chat(generateApiKey('live'), 'quantum-pro'))).status).toBe(403);
  });
});
