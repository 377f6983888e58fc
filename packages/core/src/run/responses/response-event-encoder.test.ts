import OpenAI from 'openai';
import OpenAI5 from 'openai5old';
import OpenAI7 from 'openai7';
import { describe, expect, it } from 'vitest';
import type { ChatEngineEvent, EngineUsage } from '../../engine/chat-engine.js';
import { readResponseStream } from '../../dialect/responses/read-response-events.js';
import { validateCreateResponse } from '../../request/responses/validate-create-response.js';
import { buildResponse } from './build-response.js';
import { createSequentialResponseIdGenerator } from './response-ids.js';
import { createResponseShell } from './response-shell.js';
import { responseObjectSchema } from '../../schemas/responses/response-object-schema.js';
import { createSseDecoder } from '../../sse/create-sse-decoder.js';
import { createResponseEventEncoder } from './response-event-encoder.js';

const usage: EngineUsage = { promptTokens: 12, completionTokens: 9, reasoningTokens: 3, cachedPromptTokens: 4 };
const createdAt = 1_700_000_000;
const completedAt = 1_700_000_005;

function setup(body: Record<string, unknown>) {
  const request = validateCreateResponse({ model: 'quantum-reasoner', input: 'Hi', ...body });
  return createResponseShell(request, { id: 'resp_test', createdAt, model: request.model });
}

/** The whole stream of a run, and the response the encoder says it ended with. */
function encode(events: ChatEngineEvent[], body: Record<string, unknown> = {}, showReasoning = true) {
  const encoder = createResponseEventEncoder(setup(body), {
    generateId: createSequentialResponseIdGenerator(),
    showReasoning,
    showLogprobs: body.include !== undefined,
    now: () => completedAt,
  });
  let stream = encoder.start();
  for (const event of events) stream += encoder.encode(event);
  return { stream, final: encoder.response()! };
}

function eventsOf(stream: string): { event: string | undefined; data: Record<string, unknown> }[] {
  const out: { event: string | undefined; data: Record<string, unknown> }[] = [];
  const decoder = createSseDecoder({ onEvent: (event) => out.push({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> }) });
  decoder.feed(stream);
  decoder.end();
  return out;
}

/** A fetch that answers every request with `stream` as an event stream, in small pieces. */
function serve(stream: string): typeof fetch {
  return async () => {
    const bytes = new TextEncoder().encode(stream);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let start = 0; start < bytes.length; start += 37) controller.enqueue(bytes.slice(start, start + 37));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
}

const derivedBySdk = new Set(['output_text', 'output_parsed', 'parsed', 'parsed_arguments']);

/** The SDK's final response without the fields it derives itself (`output_text`, parsed output). */
function withoutDerived(response: object): unknown {
  return JSON.parse(JSON.stringify(response, (key, value: unknown) => (derivedBySdk.has(key) ? undefined : value)));
}

const reasonedAnswer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'The user greets; ' },
  { type: 'reasoning', text: 'greet back.' },
  { type: 'content', text: 'Hello' },
  { type: 'content', text: ', "world"\n' },
  { type: 'finish', reason: 'stop', usage },
];

const toolCalls: ChatEngineEvent[] = [
  { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":' },
  { type: 'tool-call', index: 1, name: 'get_time', argumentsDelta: '' },
  { type: 'tool-call', index: 0, argumentsDelta: '"Paris"}' },
  { type: 'tool-call', index: 1, argumentsDelta: '{}' },
  { type: 'finish', reason: 'tool_calls', usage },
];
const toolBody = {
  tools: [
    { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    { type: 'function', name: 'get_time' },
  ],
};

const cutShort: ChatEngineEvent[] = [
  { type: 'content', text: 'Once upon' },
  { type: 'finish', reason: 'length', usage },
];

const cases: { name: string; events: ChatEngineEvent[]; body: Record<string, unknown> }[] = [
  { name: 'reasoning then an answer', events: reasonedAnswer, body: {} },
  { name: 'two interleaved function calls', events: toolCalls, body: toolBody },
  { name: 'an answer cut by max_output_tokens', events: cutShort, body: { max_output_tokens: 2 } },
  {
    name: 'an answer with log probabilities',
    events: [
      { type: 'content', text: 'Hi', logprobs: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105] }] }] },
      { type: 'finish', reason: 'stop', usage },
    ],
    body: { include: ['message.output_text.logprobs'], top_logprobs: 1 },
  },
];

describe('createResponseEventEncoder', () => {
  it('writes named events, each with its type and the next sequence number, and no [DONE]', () => {
    const { stream } = encode(reasonedAnswer);
    const events = eventsOf(stream);
    expect(events.map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    events.forEach((event, index) => {
      expect(event.data.type).toBe(event.event);
      expect(event.data.sequence_number).toBe(index);
    });
    expect(stream).not.toContain('[DONE]');
    expect(events[0]!.data.response).toMatchObject({ id: 'resp_test', object: 'response', status: 'in_progress', output: [], usage: null });
  });

  it('puts the reasoning item before the message, as a one-part summary', () => {
    const { final } = encode(reasonedAnswer);
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output[0]).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [{ type: 'summary_text', text: 'The user greets; greet back.' }] });
    expect(final.output[1]).toMatchObject({
      type: 'message',
      id: expect.stringMatching(/^msg_/),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello, "world"\n', annotations: [], logprobs: [] }],
    });
    expect(final.usage).toEqual({
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 3 },
      total_tokens: 21,
    });
    expect(final).toMatchObject({ status: 'completed', completed_at: completedAt, incomplete_details: null, error: null });
  });

  it('leaves reasoning out for a model that does not show it', () => {
    const { final, stream } = encode(reasonedAnswer, {}, false);
    expect(final.output.map((item) => item.type)).toEqual(['message']);
    expect(stream).not.toContain('reasoning_summary');
  });

  it('gives each function call its fc_ id and call_ id, arguments streamed and then whole', () => {
    const { final, stream } = encode(toolCalls, toolBody);
    expect(final.output).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: expect.stringMatching(/^call_/), name: 'get_time', arguments: '{}', status: 'completed' },
    ]);
    const done = eventsOf(stream).filter((event) => event.event === 'response.function_call_arguments.done');
    expect(done.map((event) => [event.data.name, event.data.arguments])).toEqual([['get_weather', '{"city":"Paris"}'], ['get_time', '{}']]);
  });

  it('ends a response cut by the token limit with response.incomplete', () => {
    const { final, stream } = encode(cutShort, { max_output_tokens: 2 });
    expect(final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 2 });
    expect(final.output[0]).toMatchObject({ status: 'incomplete' });
    expect(eventsOf(stream).at(-1)!.event).toBe('response.incomplete');
  });

  it('reports a failure after the first byte as an error event, then response.failed', () => {
    const encoder = createResponseEventEncoder(setup({}), { generateId: createSequentialResponseIdGenerator(), showReasoning: true, showLogprobs: false, now: () => completedAt });
    let stream = encoder.start() + encoder.encode({ type: 'content', text: 'Hel' });
    expect(encoder.items()).toEqual([expect.objectContaining({ type: 'message', status: 'in_progress', content: [expect.objectContaining({ text: 'Hel' })] })]);
    stream += encoder.fail({ code: 'upstream_error', message: 'The model stopped.', param: null });
    const events = eventsOf(stream);
    expect(events.slice(-2).map((event) => event.data)).toEqual([
      { type: 'error', code: 'upstream_error', message: 'The model stopped.', param: null, sequence_number: events.length - 2 },
      expect.objectContaining({ type: 'response.failed', response: expect.objectContaining({ status: 'failed', error: { code: 'upstream_error', message: 'The model stopped.' } }) }),
    ]);
    expect(encoder.response()!.output[0]).toMatchObject({ status: 'incomplete', content: [{ text: 'Hel' }] });
  });

  describe.each(cases)('$name: every reader ends with the same Response', ({ events, body }) => {
    const { stream, final } = encode(events, body);

    it('is the JSON path response', () => {
      const request = validateCreateResponse({ model: 'quantum-reasoner', input: 'Hi', ...body });
      const shell = createResponseShell(request, { id: 'resp_test', createdAt, model: request.model });
      const json = buildResponse(shell, events, { generateId: createSequentialResponseIdGenerator(), showReasoning: true, showLogprobs: body.include !== undefined, completedAt });
      expect(json).toEqual(final);
    });

    it('matches the Response schema, as does every response event of the stream', () => {
      expect(responseObjectSchema.safeParse(final).error).toBeUndefined();
      for (const { data } of eventsOf(stream)) if (data.response !== undefined) expect(responseObjectSchema.safeParse(data.response).error).toBeUndefined();
    });

    it('is what our reader accumulates', async () => {
      const pieces = stream.match(/[\s\S]{1,23}/g)!;
      expect(await readResponseStream(pieces)).toEqual(final);
    });

    it.each([
      ['openai 6', OpenAI],
      ['openai 7', OpenAI7],
      ['openai 5.10', OpenAI5],
    ] as const)("is what the %s SDK's ResponseStream accumulates", async (_name, Client) => {
      // Three majors of one SDK: their method types differ, their call is the same.
      const client = new Client({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch: serve(stream), maxRetries: 0 }) as unknown as OpenAI;
      const seen: string[] = [];
      const runner = client.responses.stream({ model: 'quantum-reasoner', input: 'Hi' });
      runner.on('event', (event: { type: string }) => seen.push(event.type));
      const response = await runner.finalResponse();
      if (Client === OpenAI5 && final.status !== 'completed') {
        // openai 5.10's accumulator takes only `response.completed` as the final word: an
        // incomplete response stays its own `in_progress` snapshot (it skips `output_item.done`
        // too), the text still whole.
        const output = final.output.map((item) => ({ ...item, status: 'in_progress' }));
        expect(withoutDerived(response)).toEqual({ ...final, output, status: 'in_progress', usage: null, completed_at: null, incomplete_details: null });
      } else expect(withoutDerived(response)).toEqual(final);
      expect(seen.at(-1)).toBe(final.status === 'completed' ? 'response.completed' : 'response.incomplete');
    });
  });
});
