/**
 * The Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`, majors 6 and 7) against the real server
 * over HTTP: `generateText` and `streamText` for every model and stream format (text, reasoning
 * parts, tool calls, finish reason, usage), its errors, and a mid-stream failure. Its default
 * OpenAI provider (`@ai-sdk/openai`) works through `openai.chat(model)` (chat completions) here,
 * and through `openai(model)` (the Responses API) in ai-sdk-responses.test.ts.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateApiKey } from '@quantum-chat/core';
import type { TextStreamPart, ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { aiSdkClient, aiSdkVersions, type AiSdkVersion } from './support/ai-sdk-client.js';
import { createCompatRecorder, installedVersion, type CompatCell } from './support/compat-recorder.js';
import { partialAnswer } from './support/failing-upstream.js';
import { fetchReferenceAnswer, models, question, streamFormats, weatherQuestion, type ModelId, type ReferenceAnswer, type StreamFormat } from './support/fixtures.js';
import { failingModel, startInteropServer, type InteropServer } from './support/interop-server.js';

const compat = createCompatRecorder('ai-sdk');
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

function cell(sdk: AiSdkVersion, format: StreamFormat | 'any', fields: Omit<CompatCell, 'client' | 'version' | 'format'>): CompatCell {
  return { client: aiSdkClient, version: sdk.version, format: format === 'any' ? 'any' : format.id, ...fields };
}

/** Reasoning tokens are in `outputTokenDetails` (6 and 7; 7 dropped the top-level `reasoningTokens`). */
function expectUsage(
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined; outputTokenDetails?: { reasoningTokens?: number | undefined } },
  reference: ReferenceAnswer,
) {
  expect(usage.inputTokens).toBe(reference.usage.prompt_tokens);
  expect(usage.outputTokens).toBe(reference.usage.completion_tokens);
  expect(usage.totalTokens).toBe(reference.usage.total_tokens);
  expect(usage.outputTokenDetails?.reasoningTokens ?? 0).toBe(reference.usage.completion_tokens_details?.reasoning_tokens ?? 0);
}

const calls: { city: string }[] = [];

/** The weather tool, made with the SDK's own `tool` helper. */
function weatherTools(sdk: AiSdkVersion) {
  return {
    get_weather: sdk.ai.tool({
      description: 'Get the current weather for a city',
      inputSchema: z.object({ city: z.string().describe('The city name') }),
      execute: async ({ city }) => {
        calls.push({ city });
        return { city, temperature_c: 18, sky: 'cloudy' };
      },
    }),
  } satisfies ToolSet;
}

async function caught(promise: PromiseLike<unknown>): Promise<any> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error('Expected the call to fail, and it succeeded.');
    },
    (error: unknown) => error,
  );
}

describe.each(aiSdkVersions)(`${aiSdkClient} $version`, (sdk) => {
  const { APICallError, generateText, stepCountIs, streamText } = sdk.ai;
  const tools = weatherTools(sdk);

  function provider(format: StreamFormat, options: { apiKey?: string; includeUsage?: boolean } = {}) {
    return sdk.createProvider({
      baseURL: `${server.origin}${format.path}`,
      apiKey: options.apiKey ?? server.testKey,
      headers: format.headers,
      ...(options.includeUsage ? { includeUsage: true } : {}),
    });
  }

  describe.each(streamFormats)('$label', (format) => {
    describe.each(models)('%s', (model) => {
      it('should generateText with text, reasoning only for the reasoner, finish reason and usage', async () => {
        const reference = expected.get(model)!;
        const result = await generateText({ model: provider(format)(model), prompt: question });
        expect(result.text).toBe(reference.content);
        expect(result.reasoningText).toBe(model === 'quantum-reasoner' ? reference.reasoning : undefined);
        expect(result.content.map((part) => part.type)).toEqual(model === 'quantum-reasoner' ? ['reasoning', 'text'] : ['text']);
        expect(result.finishReason).toBe('stop');
        expectUsage(result.usage, reference);
        expect(result.response.modelId).toBe(model);
        compat.prove(cell(sdk, format, { feature: 'chat', model, outcome: 'works' }));
        if (model === 'quantum-reasoner') compat.prove(cell(sdk, format, { feature: 'reasoning', model, outcome: 'works' }));
      });

      it('should streamText with text and reasoning deltas, finish reason and usage', async () => {
        const reference = expected.get(model)!;
        const errors: unknown[] = [];
        const result = streamText({ model: provider(format)(model), prompt: question, onError: ({ error }) => void errors.push(error) });
        let text = '';
        let reasoning = '';
        const types: string[] = [];
        for await (const part of result.fullStream) {
          if (types.at(-1) !== part.type) types.push(part.type);
          if (part.type === 'text-delta') text += part.text;
          if (part.type === 'reasoning-delta') reasoning += part.text;
        }
        expect(errors).toEqual([]);
        expect(text).toBe(reference.content);
        expect(reasoning).toBe(model === 'quantum-reasoner' ? reference.reasoning : '');
        // Reasoning is a part of its own, and all of it comes before the answer.
        const body = ['text-start', 'text-delta', 'text-end'];
        expect(types).toEqual(['start', 'start-step', ...(model === 'quantum-reasoner' ? ['reasoning-start', 'reasoning-delta', 'reasoning-end'] : []), ...body, 'finish-step', 'finish']);
        expect(await result.finishReason).toBe('stop');
        expectUsage(await result.usage, reference);
        compat.prove(cell(sdk, format, { feature: 'stream', model, outcome: 'works' }));
        if (model === 'quantum-reasoner') compat.prove(cell(sdk, format, { feature: 'reasoning', model, outcome: 'works' }));
      });

      it('should streamText with includeUsage (stream_options.include_usage)', async () => {
        const reference = expected.get(model)!;
        const result = streamText({ model: provider(format, { includeUsage: true })(model), prompt: question });
        expect(await result.text).toBe(reference.content);
        expect(await result.finishReason).toBe('stop');
        expectUsage(await result.totalUsage, reference);
        compat.prove(cell(sdk, format, { feature: 'include-usage', model, outcome: 'works' }));
      });

      it('should call the tool and answer from its result, with generateText and streamText', async () => {
        calls.length = 0;
        const generated = await generateText({ model: provider(format)(model), prompt: weatherQuestion, tools, stopWhen: stepCountIs(3) });
        expect(generated.steps).toHaveLength(2);
        expect(generated.steps[0]!.finishReason).toBe('tool-calls');
        expect(generated.steps[0]!.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'Paris' }]]);
        expect(generated.steps[0]!.toolCalls[0]!.toolCallId).toMatch(/^call_/);
        expect(generated.finishReason).toBe('stop');
        expect(generated.text.length).toBeGreaterThan(0);

        const streamed = streamText({ model: provider(format)(model), prompt: weatherQuestion, tools, stopWhen: stepCountIs(3) });
        const parts: TextStreamPart<typeof tools>[] = [];
        for await (const part of streamed.fullStream) parts.push(part);
        const toolCalls = parts.filter((part) => part.type === 'tool-call');
        expect(toolCalls.map((part) => [part.toolName, part.input])).toEqual([['get_weather', { city: 'Paris' }]]);
        expect(parts.filter((part) => part.type === 'finish-step').map((part) => part.finishReason)).toEqual(['tool-calls', 'stop']);
        // The answer quotes the tool result; its wording varies with the (random) tool call id.
        expect(generated.text).toMatch(/get_weather .*Paris.*18/);
        expect(await streamed.text).toMatch(/get_weather .*Paris.*18/);
        expect(calls).toEqual([{ city: 'Paris' }, { city: 'Paris' }]);
        compat.prove(cell(sdk, format, { feature: 'tools', model, outcome: 'works' }));
      });
    });

    it('should surface a mid-stream error as an error part and finish reason "error", never "stop"', async () => {
      const errors: unknown[] = [];
      const result = streamText({ model: provider(format, { apiKey: keys.live })(failingModel), prompt: question, onError: ({ error }) => void errors.push(error) });
      let text = '';
      const errorParts: unknown[] = [];
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') text += part.text;
        if (part.type === 'error') errorParts.push(part.error);
      }
      expect(text).toBe(partialAnswer);
      expect(errorParts).toHaveLength(1);
      expect(errorParts[0]).toMatchObject({ code: 'upstream_error', type: 'server_error' });
      expect(errors).toEqual(errorParts);
      expect(await result.finishReason).toBe('error');
      compat.prove(cell(sdk, format, { feature: 'mid-stream error', outcome: 'works', detail: 'an `error` part, `onError`, finish reason `error`' }));
    });
  });

  describe('HTTP errors (APICallError with the status)', () => {
    const format = streamFormats[0]!;
    const attempt = (apiKey: string, model: string, extra: Record<string, unknown> = {}) =>
      caught(generateText({ model: provider(format, { apiKey })(model), prompt: question, maxRetries: 0, ...extra }));

    it('should throw 401 for an unknown key', async () => {
      const error = await attempt(generateApiKey('live'), 'quantum-lite');
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 401, isRetryable: false, data: { error: { code: 'invalid_api_key' } } });
      compat.prove(cell(sdk, 'any', { feature: '401', outcome: 'works', detail: '`APICallError` 401' }));
    });

    it('should throw 400 naming the parameter', async () => {
      const error = await attempt(server.testKey, 'quantum-lite', { temperature: 5 });
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 400, isRetryable: false, data: { error: { param: 'temperature' } } });
      compat.prove(cell(sdk, 'any', { feature: '400', outcome: 'works', detail: '`APICallError` 400' }));
    });

    it('should throw 404 for an unknown model', async () => {
      const error = await attempt(server.testKey, 'quantum-nonexistent');
      expect(error).toMatchObject({ statusCode: 404, data: { error: { code: 'model_not_found' } } });
      compat.prove(cell(sdk, 'any', { feature: '404', outcome: 'works', detail: '`APICallError` 404' }));
    });

    it('should throw 403 for quantum-pro on a free plan', async () => {
      const error = await attempt(keys.free, 'quantum-pro');
      expect(error).toMatchObject({ statusCode: 403, isRetryable: false, data: { error: { code: 'plan_required' } } });
      compat.prove(cell(sdk, 'any', { feature: '403', outcome: 'works', detail: '`APICallError` 403' }));
    });

    it('should throw 502 when the engine fails before the first byte', async () => {
      const error = await attempt(keys.live, failingModel);
      expect(error).toMatchObject({ statusCode: 502, isRetryable: true, data: { error: { code: 'upstream_error' } } });
      compat.prove(cell(sdk, 'any', { feature: '5xx', outcome: 'works', detail: '`APICallError` 502' }));
    });

    it('should throw an error from streamText before the stream starts (404)', async () => {
      const errors: unknown[] = [];
      const result = streamText({ model: provider(format)('quantum-nonexistent'), prompt: question, maxRetries: 0, onError: ({ error }) => void errors.push(error) });
      await caught(result.text);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ statusCode: 404 });
      compat.prove(cell(sdk, 'any', { feature: '404 (stream)', outcome: 'works', detail: '`onError` with `APICallError` 404' }));
    });
  });
});

describe(`@ai-sdk/openai ${installedVersion('@ai-sdk/openai')} (the AI SDK's default OpenAI provider)`, () => {
  const sdk = aiSdkVersions.at(-1)!;
  const openai = () => createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: server.testKey });

  it('should work through openai.chat(model), which calls chat completions', async () => {
    const reference = expected.get('quantum-lite')!;
    const result = await sdk.ai.generateText({ model: openai().chat('quantum-lite') as never, prompt: question });
    expect(result.text).toBe(reference.content);
    compat.prove({ client: '@ai-sdk/openai', version: installedVersion('@ai-sdk/openai'), format: 'quantum', feature: 'chat', model: 'quantum-lite', outcome: 'works', detail: 'through `openai.chat(model)`; `openai(model)` calls the Responses API (ai-sdk-responses.test.ts)' });
  });
});
