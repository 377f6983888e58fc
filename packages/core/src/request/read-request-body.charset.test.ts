import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../auth/parse-api-key.js';
import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import type { ChatEngine } from '../engine/chat-engine.js';
import { createChatHandler } from '../http/create-chat-handler.js';

const engine: ChatEngine = {
  async *generate() {
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 0, reasoningTokens: 0 } };
  },
};
const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() });
const key = generateApiKey('live');

async function statusFor(contentType: string): Promise<[number, string | undefined]> {
  const response = await handler.fetch(
    new Request('http://127.0.0.1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
      body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }),
    }),
  );
  const json = (await response.json()) as { error?: { code: string } };
  return [response.status, json.error?.code];
}

describe('the charset of a JSON body', () => {
  it.each(['application/json; charset=utf-16', 'application/json;charset=UTF-16LE', 'application/json; charset="iso-8859-1"', 'application/json; charset=latin1; foo=bar'])(
    'should refuse %s with 415',
    async (contentType) => {
      expect(await statusFor(contentType)).toEqual([415, 'unsupported_media_type']);
    },
  );

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'application/json; charset=utf8'])('should accept %s', async (contentType) => {
    expect((await statusFor(contentType))[0]).toBe(200);
  });
});
