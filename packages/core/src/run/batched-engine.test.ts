import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../auth/parse-api-key.js';
import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import type { ChatEngine, ChatEngineEvent } from '../engine/chat-engine.js';
import { eventsInBatches } from '../engine/events-in-batches.js';
import { createChatHandler } from '../http/create-chat-handler.js';

const key = generateApiKey('live');
const usage = { promptTokens: 5, completionTokens: 4, reasoningTokens: 1 };
const answer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'Think.' },
  { type: 'content', text: 'Hello' },
  { type: 'content', text: ' there' },
  { type: 'tool-call', index: 0, name: 'lookup', argumentsDelta: '{"q":' },
  { type: 'tool-call', index: 0, argumentsDelta: '"x"}' },
  { type: 'finish', reason: 'tool_calls', usage },
];

const oneAtATime: ChatEngine = {
  async *generate() {
    for (const event of answer) yield event;
  },
};
/** The same events in bursts, the finish inside the last one. */
const inBatches = (cuts: number[]): ChatEngine => ({
  generate: () =>
    eventsInBatches(
      (async function* () {
        let from = 0;
        for (const to of [...cuts, answer.length]) {
          yield answer.slice(from, to);
          from = to;
        }
      })(),
    ),
});

async function bodyOf(engine: ChatEngine, stream: boolean): Promise<string> {
  let counter = 0;
  const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey(), generateId: (kind) => `${kind}_${++counter}`, now: () => 1_700_000_000_000 });
  const response = await handler.fetch(
    new Request('http://127.0.0.1/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'req_fixed' },
      body: JSON.stringify({ model: 'quantum-reasoner', messages: [{ role: 'user', content: 'hi' }], stream, stream_options: stream ? { include_usage: true } : undefined }),
    }),
  );
  expect(response.status).toBe(200);
  return response.text();
}

describe('an engine that hands over its events in batches (eventsInBatches)', () => {
  for (const cuts of [[], [1], [2, 5], [1, 2, 3, 4, 5]]) {
    it(`should give the same JSON answer and the same stream as one event at a time (batches cut at ${JSON.stringify(cuts)})`, async () => {
      for (const stream of [false, true]) expect(await bodyOf(inBatches(cuts), stream)).toBe(await bodyOf(oneAtATime, stream));
    });
  }
});
