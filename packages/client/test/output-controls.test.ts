import { generateApiKey, type TokenLogprob } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient, type ChatClient } from '../src/index.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

let server: QuantumServer;
const clients = {} as Record<'quantum' | 'openai', ChatClient>;

beforeAll(async () => {
  server = await startQuantumServer();
  const apiKey = generateApiKey('live');
  for (const format of ['quantum', 'openai'] as const) clients[format] = createChatClient({ baseUrl: server.baseUrl, apiKey, streamFormat: format });
});
afterAll(() => server.close());

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

describe('output controls through the client', () => {
  it.each(['quantum', 'openai'] as const)('should hand out the logprobs of each content piece, as the completion has them [%s format]', async (format) => {
    const request = { model: 'quantum-lite', messages: [{ role: 'user' as const, content: 'Say hello.' }], logprobs: true, top_logprobs: 2 };
    const completion = await clients[format].chat.completions.create(request);
    const expected = completion.choices[0]!.logprobs!.content!;
    const streamed: TokenLogprob[] = [];
    for await (const event of clients[format].chat.completions.stream(request)) if (event.type === 'content') streamed.push(...(event.logprobs ?? []));
    expect(streamed).toEqual(expected);
    expect(streamed.map((entry) => entry.token).join('')).toBe(completion.choices[0]!.message.content);
  });

  it('should send a typed response_format and get JSON back', async () => {
    const completion = await clients.quantum.chat.completions.create({
      model: 'quantum-flash',
      messages: [{ role: 'user', content: 'Which city is the capital of Norway? Oslo?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      reasoning_effort: 'low',
      presence_penalty: 0,
    });
    expect(Object.keys(JSON.parse(completion.choices[0]!.message.content!))).toEqual(['city']);
  });
});
