/**
 * The `openai` SDK (6.x, 7.x, 5.10.2 and the last 4.x) against the real server over HTTP:
 * non-streaming, the raw streaming loop and the `chat.completions.stream()` helper, for every
 * model and every stream format, with tools and `stream_options.include_usage`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompatRecorder, type CompatCell } from './support/compat-recorder.js';
import { fetchReferenceAnswer, models, question, streamFormats, weatherQuestion, weatherResult, weatherTool, type ModelId, type ReferenceAnswer, type StreamFormat } from './support/fixtures.js';
import { startInteropServer, type InteropServer } from './support/interop-server.js';
import { openaiClients, type OpenAIClientVersion, type OpenAILike } from './support/openai-clients.js';
import { collectChunks, collectItems } from './support/openai-stream.js';

const compat = createCompatRecorder('openai-sdk');
let server: InteropServer;
const expected = new Map<ModelId, ReferenceAnswer>();

const questionMessages = [{ role: 'user', content: question }];
const weatherMessages = [{ role: 'user', content: weatherQuestion }];

beforeAll(async () => {
  server = await startInteropServer();
  for (const model of models) expected.set(model, await fetchReferenceAnswer(server.origin, server.testKey, { model, messages: questionMessages }));
});

afterAll(async () => {
  compat.flush();
  await server?.close();
});

function clientFor(sdk: OpenAIClientVersion, format: StreamFormat): OpenAILike {
  return sdk.create({ apiKey: server.testKey, baseURL: `${server.origin}${format.path}`, defaultHeaders: format.headers, maxRetries: 0 });
}

/** The cell a test proves, with the client's identity filled in. */
function cell(sdk: OpenAIClientVersion, format: StreamFormat, fields: Omit<CompatCell, 'client' | 'version' | 'format'>): CompatCell {
  return { client: 'openai', version: sdk.version, format: format.id, ...fields };
}

const reasoningUntyped = '`reasoning_content` is on the message and on each delta, outside the SDK\'s types';

/** openai <5.10.3 on the spec's format: what the raw loop yields instead of chunks. */
const wrapperFailure = 'the loop yields `{ event, data }` wrappers, not chunks (no `choices`)';
const helperFailure = '`stream()` throws OpenAIError "chunk.choices is not iterable"';

/** Asserts the concrete failure of a pre-5.10.3 client on named events. */
function expectWrappers(items: unknown[], names: string[]) {
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expect(item).toMatchObject({ event: expect.stringMatching(/^(thought_trace|message)$/), data: { object: 'chat.completion.chunk' } });
    expect(item).not.toHaveProperty('choices');
  }
  expect(new Set(items.map((item) => (item as { event: string }).event))).toEqual(new Set(names));
}

describe.each(openaiClients)('openai@$version (installed as $packageName)', (sdk) => {
  describe.each(streamFormats)('$label', (format) => {
    const namedEventsBreak = sdk.wrapsNamedEvents && format.id === 'quantum';

    it('should list the four models in order with requires_plan', async () => {
      const page = await clientFor(sdk, format).models.list();
      expect(page.data.map((model) => model.id)).toEqual([...models]);
      expect(page.data.map((model) => model.requires_plan)).toEqual([null, null, null, 'elite']);
      compat.prove(cell(sdk, format, { feature: 'models', outcome: 'works' }));
    });

    describe.each(models)('%s', (model) => {
      it('should answer non-streaming with content, reasoning_content only for the reasoner, finish_reason and usage', async () => {
        const reference = expected.get(model)!;
        const completion = await clientFor(sdk, format).chat.completions.create({ model, messages: questionMessages });
        const choice = completion.choices[0];
        expect(completion).toMatchObject({ object: 'chat.completion', model });
        expect(completion.id).toMatch(/^chatcmpl-/);
        expect(choice.message.content).toBe(reference.content);
        expect(choice.message.content.length).toBeGreaterThan(0);
        expect(choice.message.reasoning_content).toBe(model === 'quantum-reasoner' ? reference.reasoning : undefined);
        if (model === 'quantum-reasoner') expect(choice.message.reasoning_content.length).toBeGreaterThan(0);
        expect(choice.finish_reason).toBe('stop');
        expect(completion.usage).toEqual(reference.usage);
        compat.prove(cell(sdk, format, { feature: 'chat', model, outcome: 'works' }));
        if (model === 'quantum-reasoner') compat.prove(cell(sdk, format, { feature: 'reasoning', model, outcome: 'works', detail: reasoningUntyped }));
      });

      if (namedEventsBreak) {
        it('should fail to stream: the raw loop yields event wrappers, not chunks', async () => {
          const stream = await clientFor(sdk, format).chat.completions.create({ model, messages: questionMessages, stream: true });
          expectWrappers(await collectItems(stream), model === 'quantum-reasoner' ? ['thought_trace', 'message'] : ['message']);
          compat.prove(cell(sdk, format, { feature: 'stream', model, outcome: 'fails', detail: wrapperFailure }));
        });

        it('should fail in the stream() helper with "chunk.choices is not iterable"', async () => {
          const helper = sdk.streamHelper(clientFor(sdk, format), { model, messages: questionMessages });
          helper.on('error', () => {});
          const error = await helper.finalChatCompletion().then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(error).toBeInstanceOf(sdk.errors.OpenAIError);
          expect((error as Error).message).toMatch(/chunk\.choices is not iterable/);
          compat.prove(cell(sdk, format, { feature: 'stream-helper', model, outcome: 'fails', detail: helperFailure }));
        });
        return;
      }

      it('should stream with the raw loop: the same content and reasoning as non-streaming, finish_reason and usage', async () => {
        const reference = expected.get(model)!;
        const stream = await clientFor(sdk, format).chat.completions.create({ model, messages: questionMessages, stream: true });
        const collected = await collectChunks(stream);
        expect(collected.content).toBe(reference.content);
        expect(collected.reasoning).toBe(model === 'quantum-reasoner' ? reference.reasoning : '');
        expect(collected.chunks[0].choices[0].delta.role).toBe('assistant');
        expect(new Set(collected.chunks.map((chunk) => chunk.id)).size).toBe(1);
        expect(collected.finishReason).toBe('stop');
        // decisions §4.3: without include_usage the finish chunk carries usage.
        expect(collected.finishUsage).toEqual(reference.usage);
        compat.prove(cell(sdk, format, { feature: 'stream', model, outcome: 'works' }));
        if (model === 'quantum-reasoner') compat.prove(cell(sdk, format, { feature: 'reasoning', model, outcome: 'works', detail: reasoningUntyped }));
      });

      it('should stream with the stream() helper: content, events and the final completion', async () => {
        const reference = expected.get(model)!;
        const helper = sdk.streamHelper(clientFor(sdk, format), { model, messages: questionMessages });
        let deltas = '';
        const reasoningPieces: string[] = [];
        helper.on('content.delta', (event: { delta: string }) => (deltas += event.delta));
        helper.on('chunk', (chunk: any) => {
          const piece = chunk.choices[0]?.delta?.reasoning_content;
          if (piece) reasoningPieces.push(piece);
        });
        const final = await helper.finalChatCompletion();
        expect(final.choices[0].message.content).toBe(reference.content);
        expect(deltas).toBe(reference.content);
        expect(final.choices[0].finish_reason).toBe('stop');
        expect(final.usage).toEqual(reference.usage);
        compat.prove(cell(sdk, format, { feature: 'stream-helper', model, outcome: 'works' }));
        if (model !== 'quantum-reasoner') return;
        // The SDK does not know reasoning_content: the snapshot keeps the last piece only.
        expect(reasoningPieces.join('')).toBe(reference.reasoning);
        expect(final.choices[0].message.reasoning_content).toBe(reasoningPieces.at(-1));
        compat.prove(
          cell(sdk, format, {
            feature: 'reasoning',
            model,
            outcome: 'works',
            detail: 'the `stream()` helper\'s `finalChatCompletion()` keeps only the last `reasoning_content` piece (in every format): collect it from the `chunk` event',
          }),
        );
      });

      it('should add the usage chunk with stream_options.include_usage', async () => {
        const reference = expected.get(model)!;
        const stream = await clientFor(sdk, format).chat.completions.create({ model, messages: questionMessages, stream: true, stream_options: { include_usage: true } });
        const collected = await collectChunks(stream);
        expect(collected.content).toBe(reference.content);
        const last = collected.chunks.at(-1);
        expect(last.choices).toEqual([]);
        expect(last.usage).toEqual(reference.usage);
        // decisions §4.3: with include_usage only the `choices: []` chunk carries usage.
        expect(collected.finishUsage).toBeUndefined();
        const helper = sdk.streamHelper(clientFor(sdk, format), { model, messages: questionMessages, stream_options: { include_usage: true } });
        expect((await helper.finalChatCompletion()).usage).toEqual(reference.usage);
        compat.prove(cell(sdk, format, { feature: 'include-usage', model, outcome: 'works' }));
      });

      it('should call the tool (non-streaming, raw stream, helper) and answer from its result', async () => {
        const client = clientFor(sdk, format);
        const body = { model, messages: weatherMessages, tools: [weatherTool] };
        const completion = await client.chat.completions.create(body);
        const message = completion.choices[0].message;
        expect(completion.choices[0].finish_reason).toBe('tool_calls');
        expect(message.content).toBeNull();
        expect(message.tool_calls).toHaveLength(1);
        expect(message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
        expect(message.tool_calls[0].id).toMatch(/^call_/);
        expect(JSON.parse(message.tool_calls[0].function.arguments)).toEqual({ city: 'Paris' });

        const streamed = await collectChunks(await client.chat.completions.create({ ...body, stream: true }));
        expect(streamed.finishReason).toBe('tool_calls');
        expect(streamed.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: message.tool_calls[0].function.arguments }]);

        const helper = sdk.streamHelper(client, body);
        const toolArguments: string[] = [];
        helper.on('tool_calls.function.arguments.done', (event: { name: string; arguments: string }) => toolArguments.push(`${event.name}:${event.arguments}`));
        const final = await helper.finalChatCompletion();
        expect(final.choices[0].finish_reason).toBe('tool_calls');
        expect(final.choices[0].message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: message.tool_calls[0].function.arguments } }]);
        expect(toolArguments).toEqual([`get_weather:${message.tool_calls[0].function.arguments}`]);

        const answer = await client.chat.completions.create({
          model,
          messages: [...weatherMessages, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: weatherResult }],
          tools: [weatherTool],
        });
        expect(answer.choices[0].finish_reason).toBe('stop');
        expect(answer.choices[0].message.content.length).toBeGreaterThan(0);
        compat.prove(cell(sdk, format, { feature: 'tools', model, outcome: 'works' }));
      });
    });

    if (namedEventsBreak) {
      it('should fail to stream tool calls and include_usage the same way', async () => {
        const client = clientFor(sdk, format);
        expectWrappers(await collectItems(await client.chat.completions.create({ model: 'quantum-flash', messages: weatherMessages, tools: [weatherTool], stream: true })), ['message']);
        expectWrappers(
          await collectItems(await client.chat.completions.create({ model: 'quantum-lite', messages: questionMessages, stream: true, stream_options: { include_usage: true } })),
          ['message'],
        );
        compat.prove(cell(sdk, format, { feature: 'tools', outcome: 'fails', detail: wrapperFailure }));
        compat.prove(cell(sdk, format, { feature: 'include-usage', outcome: 'fails', detail: wrapperFailure }));
      });

      it('should call tools when not streaming', async () => {
        const completion = await clientFor(sdk, format).chat.completions.create({ model: 'quantum-flash', messages: weatherMessages, tools: [weatherTool] });
        expect(completion.choices[0].message.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
        compat.prove(cell(sdk, format, { feature: 'tools-non-streaming', outcome: 'works' }));
      });
    }
  });
});
