/**
 * LangChain's `ChatOpenAI` (`@langchain/openai` ≥ 1) against the real server over HTTP:
 * `invoke`, `stream` and tool calls through `bindTools`, for every model and stream format,
 * with its errors and a mid-stream failure.
 */
import { AIMessageChunk, HumanMessage, ToolMessage, type AIMessage } from '@langchain/core/messages';
import { concat } from '@langchain/core/utils/stream';
import { generateApiKey } from '@quantum-chat/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompatRecorder, type CompatCell } from './support/compat-recorder.js';
import { partialAnswer } from './support/failing-upstream.js';
import { fetchReferenceAnswer, models, question, streamFormats, weatherQuestion, weatherResult, weatherTool, type ModelId, type ReferenceAnswer, type StreamFormat } from './support/fixtures.js';
import { failingModel, startInteropServer, type InteropServer } from './support/interop-server.js';
import { createChatOpenAI, langchainClient, langchainVersion } from './support/langchain-client.js';

const compat = createCompatRecorder('langchain');
let server: InteropServer;
const expected = new Map<ModelId, ReferenceAnswer>();
const keys = { live: '', free: '' };

beforeAll(async () => {
  server = await startInteropServer();
  [keys.live, keys.free] = await Promise.all([
    server.createKey({ organisation: 'default', kind: 'live' }),
    server.createKey({ organisation: 'free-org', plan: 'free', kind: 'live' }),
  ]);
  for (const model of models) expected.set(model, await fetchReferenceAnswer(server.origin, server.testKey, { model, messages: [{ role: 'user', content: question }] }));
});

afterAll(async () => {
  compat.flush();
  await server?.close();
});

function chatModel(format: StreamFormat, model: string, options: { apiKey?: string; streamUsage?: boolean } = {}) {
  return createChatOpenAI({
    model,
    apiKey: options.apiKey ?? server.testKey,
    baseURL: `${server.origin}${format.path}`,
    headers: format.headers,
    maxRetries: 0,
    ...(options.streamUsage !== undefined ? { streamUsage: options.streamUsage } : {}),
  });
}

function cell(format: StreamFormat | 'any', fields: Omit<CompatCell, 'client' | 'version' | 'format'>): CompatCell {
  return { client: langchainClient, version: langchainVersion, format: format === 'any' ? 'any' : format.id, ...fields };
}

async function streamAll(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> {
  let merged: AIMessageChunk | undefined;
  for await (const chunk of stream) merged = merged === undefined ? chunk : concat(merged, chunk);
  if (merged === undefined) throw new Error('The stream yielded nothing.');
  return merged;
}

function expectUsageMetadata(message: AIMessage | AIMessageChunk, reference: ReferenceAnswer) {
  expect(message.usage_metadata).toMatchObject({
    input_tokens: reference.usage.prompt_tokens,
    output_tokens: reference.usage.completion_tokens,
    total_tokens: reference.usage.total_tokens,
  });
}

async function caught(promise: PromiseLike<unknown>): Promise<any> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error('Expected the call to fail, and it succeeded.');
    },
    (error: unknown) => error,
  );
}

/**
 * The raw `response_metadata.usage` of a merged stream: LangChain copies each chunk's `usage`
 * there and `concat()` adds them up, so it is only right when one chunk carries usage. With
 * `include_usage` only the `choices: []` chunk does (decisions §4.3), as against OpenAI.
 */
function rawUsageOf(merged: AIMessageChunk): { prompt_tokens?: number; completion_tokens?: number } | undefined {
  return merged.response_metadata.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
}

const rawUsageWithoutIncludeUsageCaveat =
  '`usage_metadata` is always right; with `streamUsage: false` (no `include_usage`) the raw `response_metadata.usage` of a merged stream counts usage twice (LangChain repeats the finish chunk\'s usage)';
const reasoningCaveat = 'reasoning arrives in `additional_kwargs.reasoning_content` (not in `contentBlocks`)';

describe(`${langchainClient} ${langchainVersion}`, () => {
  describe.each(streamFormats)('$label', (format) => {
    describe.each(models)('%s', (model) => {
      it('should invoke: content, reasoning_content only for the reasoner, finish_reason and usage', async () => {
        const reference = expected.get(model)!;
        const message = await chatModel(format, model).invoke(question);
        expect(message.content).toBe(reference.content);
        expect(message.additional_kwargs.reasoning_content).toBe(model === 'quantum-reasoner' ? reference.reasoning : undefined);
        expect(message.response_metadata).toMatchObject({ finish_reason: 'stop', model_name: model });
        expectUsageMetadata(message, reference);
        compat.prove(cell(format, { feature: 'chat', model, outcome: 'works' }));
        if (model === 'quantum-reasoner') compat.prove(cell(format, { feature: 'reasoning', model, outcome: 'works', detail: reasoningCaveat }));
      });

      it('should stream: the same content and reasoning, finish_reason and usage_metadata', async () => {
        const reference = expected.get(model)!;
        // streamUsage (the default) sends stream_options.include_usage.
        const merged = await streamAll(await chatModel(format, model).stream(question));
        expect(merged.content).toBe(reference.content);
        expect(merged.additional_kwargs.reasoning_content).toBe(model === 'quantum-reasoner' ? reference.reasoning : undefined);
        expect(merged.response_metadata.finish_reason).toBe('stop');
        expectUsageMetadata(merged, reference);
        expect(rawUsageOf(merged)).toMatchObject({ prompt_tokens: reference.usage.prompt_tokens, completion_tokens: reference.usage.completion_tokens });
        compat.prove(cell(format, { feature: 'stream', model, outcome: 'works' }));
        if (model === 'quantum-reasoner') compat.prove(cell(format, { feature: 'reasoning', model, outcome: 'works', detail: reasoningCaveat }));
      });

      it('should report usage_metadata with and without include_usage (streamUsage: false)', async () => {
        const reference = expected.get(model)!;
        for (const streamUsage of [true, false]) {
          const merged = await streamAll(await chatModel(format, model, { streamUsage }).stream(question));
          expect(merged.content).toBe(reference.content);
          expectUsageMetadata(merged, reference);
          // Without include_usage the finish chunk carries usage, and LangChain yields it once
          // more at the end on its own: the raw sum counts it twice. With it, once.
          const times = streamUsage ? 1 : 2;
          expect(rawUsageOf(merged)).toMatchObject({ prompt_tokens: times * reference.usage.prompt_tokens, completion_tokens: times * reference.usage.completion_tokens });
        }
        compat.prove(cell(format, { feature: 'include-usage', model, outcome: 'works', detail: rawUsageWithoutIncludeUsageCaveat }));
      });

      it('should call the tool through bindTools (invoke and stream) and answer from its result', async () => {
        const bound = chatModel(format, model).bindTools([weatherTool]);
        const message = await bound.invoke(weatherQuestion);
        expect(message.response_metadata.finish_reason).toBe('tool_calls');
        expect(message.tool_calls).toEqual([{ name: 'get_weather', args: { city: 'Paris' }, id: expect.stringMatching(/^call_/), type: 'tool_call' }]);

        const merged = await streamAll(await bound.stream(weatherQuestion));
        expect(merged.response_metadata.finish_reason).toBe('tool_calls');
        expect(merged.tool_calls).toEqual([{ name: 'get_weather', args: { city: 'Paris' }, id: expect.stringMatching(/^call_/), type: 'tool_call' }]);
        expect(merged.tool_call_chunks).toHaveLength(1);

        const answer = await bound.invoke([new HumanMessage(weatherQuestion), message, new ToolMessage({ tool_call_id: message.tool_calls![0]!.id!, content: weatherResult })]);
        expect(answer.response_metadata.finish_reason).toBe('stop');
        expect(answer.content).toMatch(/get_weather .*Paris.*18/);
        compat.prove(cell(format, { feature: 'tools', model, outcome: 'works' }));
      });
    });

    it('should throw from stream() on a mid-stream error, after the partial content', async () => {
      const chat = chatModel(format, failingModel, { apiKey: keys.live });
      let text = '';
      const error = await caught(
        (async () => {
          for await (const chunk of await chat.stream(question)) text += String(chunk.content);
        })(),
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).toMatchObject({ code: 'upstream_error', type: 'server_error' });
      expect(text).toBe(partialAnswer);
      compat.prove(cell(format, { feature: 'mid-stream error', outcome: 'works', detail: 'loop throws `APIError`' }));
    });
  });

  describe('HTTP errors (the openai SDK classes LangChain rethrows)', () => {
    const format = streamFormats[0]!;

    it('should throw AuthenticationError for an unknown key', async () => {
      const error = await caught(chatModel(format, 'quantum-lite', { apiKey: generateApiKey('live') }).invoke(question));
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', lc_error_code: 'MODEL_AUTHENTICATION' });
      compat.prove(cell('any', { feature: '401', outcome: 'works', detail: '`AuthenticationError`' }));
    });

    it('should throw BadRequestError naming the parameter', async () => {
      const error = await caught(chatModel(format, 'quantum-lite').invoke(question, { stop: ['a', 'b', 'c', 'd', 'e'] }));
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'stop' });
      compat.prove(cell('any', { feature: '400', outcome: 'works', detail: '`BadRequestError`' }));
    });

    it('should throw NotFoundError for an unknown model, streaming or not', async () => {
      const error = await caught(chatModel(format, 'quantum-nonexistent').invoke(question));
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error).toMatchObject({ status: 404, code: 'model_not_found', lc_error_code: 'MODEL_NOT_FOUND' });
      const streamError = await caught((async () => streamAll(await chatModel(format, 'quantum-nonexistent').stream(question)))());
      expect(streamError).toBeInstanceOf(OpenAI.NotFoundError);
      compat.prove(cell('any', { feature: '404', outcome: 'works', detail: '`NotFoundError`' }));
    });

    it('should throw PermissionDeniedError for quantum-pro on a free plan', async () => {
      const error = await caught(chatModel(format, 'quantum-pro', { apiKey: keys.free }).invoke(question));
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(error).toMatchObject({ status: 403, code: 'plan_required' });
      compat.prove(cell('any', { feature: '403', outcome: 'works', detail: '`PermissionDeniedError`' }));
    });

    it('should throw InternalServerError (502) when the engine fails before the first byte', async () => {
      const error = await caught(chatModel(format, failingModel, { apiKey: keys.live }).invoke(question));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
      compat.prove(cell('any', { feature: '5xx', outcome: 'works', detail: '`InternalServerError`' }));
    });
  });
});
