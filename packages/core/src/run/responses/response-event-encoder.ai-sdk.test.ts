import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import { validateCreateResponse } from '../../request/responses/validate-create-response.js';
import { buildResponse } from './build-response.js';
import { createSequentialResponseIdGenerator } from './response-ids.js';
import { createResponseShell } from './response-shell.js';
import { createResponseEventEncoder } from './response-event-encoder.js';

// The AI SDK's own reading of our reasoning form (decisions §10): a `reasoning` item whose
// trace is its one `summary_text` part, streamed as reasoning-summary events.

const events: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'The user greets; ' },
  { type: 'reasoning', text: 'greet back.' },
  { type: 'content', text: 'Hello there.' },
  { type: 'finish', reason: 'stop', usage: { promptTokens: 3, completionTokens: 7, reasoningTokens: 4 } },
];

function shell() {
  const request = validateCreateResponse({ model: 'quantum-reasoner', input: 'Hi' });
  return createResponseShell(request, { id: 'resp_ai', createdAt: 1_700_000_000, model: request.model });
}

/** A provider whose fetch answers with `body`: the SDK parses our bytes with its own code. */
function providerAnswering(body: string, contentType: string) {
  return createOpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch: async () => new Response(body, { headers: { 'content-type': contentType } }) });
}

describe('the AI SDK reads our Responses reasoning', () => {
  it('from a stream (streamText)', async () => {
    const encoder = createResponseEventEncoder(shell(), { generateId: createSequentialResponseIdGenerator(), showReasoning: true, showLogprobs: false });
    const stream = encoder.start() + events.map((event) => encoder.encode(event)).join('');
    const result = streamText({ model: providerAnswering(stream, 'text/event-stream')('quantum-reasoner'), prompt: 'Hi' });
    expect(await result.text).toBe('Hello there.');
    expect(await result.reasoningText).toBe('The user greets; greet back.');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokenDetails.reasoningTokens).toBe(4);
  });

  it('from a JSON response (generateText)', async () => {
    const response = buildResponse(shell(), events, { generateId: createSequentialResponseIdGenerator(), showReasoning: true, showLogprobs: false, completedAt: 1_700_000_001 });
    const result = await generateText({ model: providerAnswering(JSON.stringify(response), 'application/json')('quantum-reasoner'), prompt: 'Hi' });
    expect(result.text).toBe('Hello there.');
    expect(result.reasoningText).toBe('The user greets; greet back.');
  });

  it('reads function calls from a stream, with their call ids', async () => {
    const request = validateCreateResponse({ model: 'quantum-flash', input: 'Weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] });
    const encoder = createResponseEventEncoder(createResponseShell(request, { id: 'resp_t', createdAt: 1, model: request.model }), { generateId: createSequentialResponseIdGenerator(), showReasoning: false, showLogprobs: false });
    const toolEvents: ChatEngineEvent[] = [
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":' },
      { type: 'tool-call', index: 0, argumentsDelta: '"Paris"}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 3, completionTokens: 5, reasoningTokens: 0 } },
    ];
    const stream = encoder.start() + toolEvents.map((event) => encoder.encode(event)).join('');
    const result = streamText({
      model: providerAnswering(stream, 'text/event-stream')('quantum-flash'),
      prompt: 'Weather?',
      tools: { get_weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }) }) },
    });
    const calls = await result.toolCalls;
    expect(calls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(calls[0]!.toolCallId).toMatch(/^call_/);
    expect(await result.finishReason).toBe('tool-calls');
  });
});

