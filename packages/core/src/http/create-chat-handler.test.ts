import { describe, expect, it } from 'vitest';
import type { ChatEngine, ChatEngineEvent } from '../engine/chat-engine.js';
import { generateApiKey } from '../auth/parse-api-key.js';
import { createSequentialIdGenerator } from '../ids.js';
import { createChatHandler } from './create-chat-handler.js';

const key = generateApiKey('live');

function scriptedEngine(events: ChatEngineEvent[]): ChatEngine {
  return {
    async *generate() {
      for (const event of events) yield event;
    },
  };
}

const usage = { promptTokens: 5, completionTokens: 3, reasoningTokens: 1 };
const answer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'think' },
  { type: 'content', text: 'Hello' },
  { type: 'content', text: ' world' },
  { type: 'finish', reason: 'stop', usage },
];

function post(body: unknown, headers: Record<string, string> = {}) {
  return new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('createChatHandler', () => {
  const handler = createChatHandler({ engine: scriptedEngine(answer), generateId: createSequentialIdGenerator(), now: () => 1_700_000_000_000 });

  it('should answer a plain request with a spec-shaped completion', async () => {
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }], foo: 1 }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-quantum-ignored-params')).toBe('foo');
    const body = await response.json();
    expect(body.choices[0].message).toEqual({ role: 'assistant', content: 'Hello world' });
    expect(body.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, completion_tokens_details: { reasoning_tokens: 1 } });
  });

  it('should cut x-quantum-ignored-params at a name boundary, then a last element "..."', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 120 }, (_, index) => [`extra_field_number_${index}`, index]));
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }], ...unknown }));
    const header = response.headers.get('x-quantum-ignored-params')!;
    expect(header.length).toBeLessThanOrEqual(1000);
    const names = header.split(', ');
    expect(names.at(-1)).toBe('...');
    expect(names.slice(0, -1)).toEqual(Object.keys(unknown).slice(0, names.length - 1));
  });

  it('should put reasoning_content before content for the reasoner', async () => {
    const response = await handler.fetch(post({ model: 'quantum-reasoner', messages: [{ role: 'user', content: 'hi' }] }));
    const text = await response.text();
    expect(text.indexOf('"reasoning_content"')).toBeLessThan(text.indexOf('"content"'));
  });

  it('should stream named events ending in [DONE]', async () => {
    const response = await handler.fetch(post({ model: 'quantum-reasoner', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await response.text();
    expect(text.startsWith('event: thought_trace\ndata: {"delta":"think",')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('should name the offending field in param', async () => {
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'robot', content: 'x' }] }));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: 'invalid_value', param: 'messages[0].role' });
  });

  it('should refuse a body nested 10,000 levels without overflowing the stack', async () => {
    const response = await handler.fetch(post('['.repeat(10_000) + ']'.repeat(10_000)));
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('nesting_too_deep');
  });
});
