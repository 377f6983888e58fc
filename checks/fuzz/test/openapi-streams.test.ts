/**
 * Real streams, every event, checked against the served OpenAPI document's `itemSchema` (JSON
 * `data` decoded and checked against its `contentSchema`), in both stream formats: plain
 * answers, the reasoner's trace, tool calls, `include_usage`, a failure mid-stream, keep-alives.
 */
import { createOpenApiChecker, parseEventStream, type OpenApiChecker, type OpenApiDocument } from '@quantum-chat/conformance';
import { createModelRegistry, generateApiKey, QuantumChatError, staticApiKeys, type ChatEngine } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwoFormatHost, type TwoFormatHost } from '../src/start-two-format-host.js';

const key = generateApiKey('test');
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const timeTool = { type: 'function', function: { name: 'get_time', description: 'Local time of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

/** quantum-lite: two words, then an upstream failure after the first byte. */
const failingMidStream: ChatEngine = {
  async *generate() {
    yield { type: 'content', text: 'Half ' };
    yield { type: 'content', text: 'an answer' };
    throw new QuantumChatError('upstream_error', 'The upstream model failed mid-answer.');
  },
};

const cases = {
  'a plain answer': { model: 'quantum-flash', messages: [{ role: 'user', content: 'Tell me about streams.' }] },
  "the reasoner's trace": { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'What is (12 + 30) / 6?' }] },
  'parallel tool calls': { model: 'quantum-pro', tools: [weatherTool, timeTool], tool_choice: 'required', messages: [{ role: 'user', content: 'Weather and time in Oslo?' }] },
  'include_usage': { model: 'quantum-reasoner', stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Count to three.' }] },
  'a failure mid-stream': { model: 'quantum-lite', messages: [{ role: 'user', content: 'Fail, please.' }] },
} as const;

const formats = [
  { name: 'Quantum', prefix: '/v1' },
  { name: 'OpenAI', prefix: '/compat/v1' },
] as const;

let host: TwoFormatHost;
let slowHost: TwoFormatHost;
const checkers = new Map<string, OpenApiChecker>();

beforeAll(async () => {
  const registry = createModelRegistry({ engine: createReferenceEngine(), engines: { 'quantum-lite': failingMidStream } });
  host = await startTwoFormatHost({ registry, accessControl: staticApiKeys([key]) });
  // A first token later than the keep-alive interval: the stream opens with `: keep-alive`.
  slowHost = await startTwoFormatHost({ engine: createReferenceEngine({ firstTokenDelayMs: 60 }), accessControl: staticApiKeys([key]), keepAliveIntervalMs: 20 });
  for (const { prefix } of formats) checkers.set(prefix, createOpenApiChecker((await (await fetch(`${host.origin}${prefix}/openapi.json`)).json()) as OpenApiDocument));
});
afterAll(async () => {
  await host?.close();
  await slowHost?.close();
});

async function stream(origin: string, prefix: string, body: object): Promise<{ status: number; headers: Headers; body: string }> {
  const response = await fetch(`${origin}${prefix}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('the OpenAPI document describes every streamed event', () => {
  it('should describe the stream item by item (OpenAPI 3.2 itemSchema), which validators read', () => {
    const checker = checkers.get('/v1')!;
    expect(checker.document.openapi).toMatch(/^3\.2\./u);
    const media = checker.findOperation('POST', '/chat/completions')!.operation.responses['200']!.content!['text/event-stream']!;
    expect(media.itemSchema).toEqual({ $ref: '#/components/schemas/ChatStreamEvent' });
    expect(media).not.toHaveProperty('x-item-schema');
  });

  describe.each(formats)('$name format ($prefix)', ({ name, prefix }) => {
    it.each(Object.entries(cases))('should send only documented events for %s', async (label, body) => {
      const checker = checkers.get(prefix)!;
      const response = await stream(host.origin, prefix, body);
      expect(response.status).toBe(200);
      expect(checker.checkResponse(checker.findOperation('POST', '/chat/completions')!, response)).toEqual([]);

      // What the case is about is really in the stream, so the check above is not vacuous.
      const events = parseEventStream(response.body);
      const named = (event: string) => events.filter((item) => item.event === event);
      const chunks = events.filter((item) => item.data !== '[DONE]').map((item) => JSON.parse(item.data) as { choices?: { delta?: Record<string, unknown> }[]; usage?: unknown; error?: unknown });
      if (label === "the reasoner's trace") expect(name === 'Quantum' ? named('thought_trace').length : chunks.filter((chunk) => chunk.choices?.[0]?.delta?.reasoning_content).length).toBeGreaterThan(0);
      if (label === 'parallel tool calls') expect(new Set(chunks.flatMap((chunk) => (chunk.choices?.[0]?.delta?.tool_calls as { index: number }[] | undefined)?.map((call) => call.index) ?? [])).size).toBe(2);
      if (label === 'include_usage') expect(chunks.filter((chunk) => chunk.usage).map((chunk) => chunk.choices)).toEqual([[]]);
      if (label === 'a failure mid-stream') {
        expect(events.at(-1)!.data).not.toBe('[DONE]');
        expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ error: { code: 'upstream_error', type: 'server_error' } });
        expect(events.at(-1)!.event).toBe(name === 'Quantum' ? 'error' : undefined);
      } else {
        expect(events.at(-1)).toEqual({ data: '[DONE]' });
      }
    });

    it('should send only documented events around keep-alive comments', async () => {
      const checker = checkers.get(prefix)!;
      const response = await stream(slowHost.origin, prefix, cases['a plain answer']);
      expect(response.body.startsWith(': keep-alive\n\n')).toBe(true);
      expect(checker.checkResponse(checker.findOperation('POST', '/chat/completions')!, response)).toEqual([]);
    });
  });

  it('should refuse events the server never sends, so the checks above are not vacuous', async () => {
    const checker = checkers.get('/v1')!;
    const itemSchema = checker.findOperation('POST', '/chat/completions')!.operation.responses['200']!.content!['text/event-stream']!.itemSchema;
    const events = parseEventStream((await stream(host.origin, '/v1', cases['a plain answer'])).body);
    const chunk = JSON.parse(events[0]!.data) as Record<string, unknown>;
    expect(checker.validateEvent(itemSchema, { event: 'message', data: JSON.stringify(chunk) })).toEqual([]);
    expect(checker.validateEvent(itemSchema, { data: '[DONE]' })).toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'message', data: JSON.stringify({ ...chunk, choices: 'none' }) })).not.toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'message', data: '{"choices": [' })).not.toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'message', data: '"[DONE]"' })).not.toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'thought_trace', data: JSON.stringify(chunk) })).not.toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'error', data: JSON.stringify({ error: { message: 'x', type: 'server_error', param: null, code: 503 } }) })).not.toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'done', data: '[DONE]' })).not.toEqual([]);
    expect(checker.validateEvent(itemSchema, { event: 'message', data: JSON.stringify(chunk), retry: -1 })).not.toEqual([]);
  });
});
