import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { collect, createRequest, finishOf, searchTool, textOf, weatherTool } from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

const engine = createReferenceEngine();
const run = (request: ChatEngineRequest, stream?: boolean) =>
  collect(engine.generate(request, { signal: new AbortController().signal, requestId: 'req_whole', stream }));

/** Tool calls as a client assembles them: name and joined arguments by index. */
function toolCallsOf(events: readonly ChatEngineEvent[]) {
  const calls: { name: string; arguments: string }[] = [];
  for (const event of events) {
    if (event.type !== 'tool-call') continue;
    calls[event.index] ??= { name: '', arguments: '' };
    calls[event.index]!.name += event.name ?? '';
    calls[event.index]!.arguments += event.argumentsDelta;
  }
  return calls;
}

const requests: [string, ChatEngineRequest][] = [
  ['an open answer', createRequest()],
  ['an answer cut by max_tokens', createRequest({ maxTokens: 7 })],
  ['reasoning and an answer', createRequest({ model: 'quantum-reasoner', reasoning: true, user: 'What is 17 * 3?' })],
  ['reasoning cut by max_tokens', createRequest({ model: 'quantum-reasoner', reasoning: true, maxTokens: 5 })],
  ['a tool call', createRequest({ user: 'What is the weather in Lisbon?', tools: [weatherTool], toolChoice: 'required' })],
  ['tool calls cut by max_tokens', createRequest({ user: 'Search the web and the weather', tools: [weatherTool, searchTool], toolChoice: 'required', maxTokens: 6 })],
  ['a stop sequence', createRequest({ stop: ['.'] })],
  ['emoji and a long run', createRequest({ user: `${'🎉'.repeat(40)} ${'a'.repeat(90)} wörld 日本語` })],
];

describe('createReferenceEngine: a client that waits for the whole answer', () => {
  it.each(requests)('should give %s in whole texts, the same texts, tool calls and finish as streamed', async (_name, request) => {
    const streamed = await run(request, true);
    const whole = await run(request, false);
    for (const type of ['content', 'reasoning'] as const) {
      expect(textOf(whole, type)).toBe(textOf(streamed, type));
      expect(whole.filter((event) => event.type === type).length).toBeLessThanOrEqual(1);
    }
    expect(toolCallsOf(whole)).toEqual(toolCallsOf(streamed));
    expect(finishOf(whole)).toEqual(finishOf(streamed));
  });

  it('should keep a piece per token where the answer carries log probabilities', async () => {
    const request = createRequest({ logprobs: { topLogprobs: 2 } });
    expect(await run(request, false)).toEqual(await run(request, true));
  });

  it('should keep a piece per token when paced, so that pacing takes as long either way', async () => {
    const paced = createReferenceEngine({ tokensPerSecond: 100_000 });
    const request = createRequest();
    const events = await collect(paced.generate(request, { signal: new AbortController().signal, requestId: 'req_paced', stream: false }));
    expect(events).toEqual(await run(request, true));
  });
});
