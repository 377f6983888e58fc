import { describe, expect, it } from 'vitest';
import type { AccessControl, AdmissionDemand } from '../auth/access-control.js';
import { generateApiKey } from '../auth/parse-api-key.js';
import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import type { ChatEngine, ChatEngineRequest } from '../engine/chat-engine.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import { createChatHandler } from './create-chat-handler.js';

const key = generateApiKey('live');
const post = (content: string) =>
  new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-lite', max_tokens: 9, messages: [{ role: 'user', content }] }),
  });

/** An engine that measures a prompt as its characters, bounded by twice that, counted in turns past 4,096; it notes what it was asked. */
function measuringEngine(calls: string[]): ChatEngine {
  const length = (request: ChatEngineRequest) => request.messages.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
  return {
    async *generate() {
      yield { type: 'content', text: 'Hi' };
      yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
    },
    measurePrompt(request) {
      calls.push('measure');
      const bound = 2 * length(request);
      return {
        bound,
        count: () => {
          calls.push(bound > 4096 ? 'count in turns' : 'count');
          return bound > 4096 ? Promise.resolve(length(request)) : length(request);
        },
      };
    },
  };
}

function admitting(seen: (demand: AdmissionDemand) => Promise<void> | void): AccessControl {
  return {
    ...insecureAcceptAnyApiKey(),
    async admit(_principal, demand) {
      await seen(demand);
      return { headers: {}, settle() {} };
    },
  };
}

describe('createChatHandler: an engine with measurePrompt', () => {
  it('should hand the access control the bound at once and the count when asked, counted once', async () => {
    const calls: string[] = [];
    const seen: unknown[] = [];
    const handler = createChatHandler({
      accessControl: admitting(async (demand) => {
        seen.push(demand.prompt?.bound, await demand.prompt?.count?.(), await demand.prompt?.count?.(), demand.promptTokens);
      }),
      engine: measuringEngine(calls),
    });
    expect((await handler.fetch(post('x'.repeat(5000)))).status).toBe(200);
    expect(seen).toEqual([10_000, 5000, 5000, 5000]);
    expect(calls).toEqual(['measure', 'count in turns']);
  });

  it('should never count a prompt that the access control refuses on its bound', async () => {
    const calls: string[] = [];
    const handler = createChatHandler({
      accessControl: admitting((demand) => {
        if (demand.prompt!.bound > 1000) throw new QuantumChatError('rate_limit_exceeded', 'Too many requests.');
      }),
      engine: measuringEngine(calls),
    });
    expect((await handler.fetch(post('x'.repeat(5000)))).status).toBe(429);
    expect(calls).toEqual(['measure']);
  });

  it('should keep the deprecated fields of the demand for access controls written before it', async () => {
    const calls: string[] = [];
    let read: unknown[] = [];
    const handler = createChatHandler({
      accessControl: admitting(async (demand) => void (read = [demand.promptTokensBound, await demand.countPromptTokens?.()])),
      engine: measuringEngine(calls),
    });
    expect((await handler.fetch(post('short'))).status).toBe(200);
    expect(read).toEqual([10, 5]);
    expect(calls).toEqual(['measure', 'count']);
  });

  it('should not measure a prompt without an admission step', async () => {
    const calls: string[] = [];
    const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: measuringEngine(calls) });
    expect((await handler.fetch(post('short'))).status).toBe(200);
    expect(calls).toEqual([]);
  });
});
