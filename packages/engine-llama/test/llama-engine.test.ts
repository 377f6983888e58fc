import { validateWithSchema } from '@quantum-chat/core/json-schema';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createLlamaEngine, type LlamaEngine } from '../src/index.js';
import { collect, engineRequest } from './helpers/engine-request.js';
import { tinyModelFile } from './helpers/tiny-model.js';

let model: Awaited<ReturnType<typeof tinyModelFile>>;
let engine: LlamaEngine;

beforeAll(async () => {
  model = await tinyModelFile();
  engine = createLlamaEngine({ modelPath: model.path, contextSize: 512, parallel: 2, threads: 1 });
  await engine.ready;
});

afterAll(async () => {
  await engine?.dispose();
  await model?.remove();
});

/** The engine's prompt count: it counts at once, so its measure's bound is the count. */
function promptTokensOf(request: Parameters<LlamaEngine['generate']>[0]): number {
  return engine.measurePrompt!(request).bound;
}

function textOf(events: Awaited<ReturnType<typeof collect>>, type: 'content' | 'reasoning' = 'content'): string {
  return events.map((event) => (event.type === type ? event.text : '')).join('');
}

describe('createLlamaEngine on the tiny GGUF', () => {
  it('loads on the CPU and says what it loaded', async () => {
    const summary = await engine.ready;
    expect(summary).toMatchObject({ file: model.path, architecture: 'llama', gpu: false, contextSize: 512, parallel: 2 });
    expect(summary.sizeBytes).toBeGreaterThan(10_000);
  });

  it('streams text and finishes with the model\'s own token counts', async () => {
    const events = await collect(engine, engineRequest({ maxTokens: 12 }));
    const finish = events.at(-1);
    expect(finish?.type).toBe('finish');
    if (finish?.type !== 'finish') return;
    expect(events.filter((event) => event.type === 'content').length).toBeGreaterThan(0);
    expect(finish.usage.completionTokens).toBeGreaterThan(0);
    expect(finish.usage.completionTokens).toBeLessThanOrEqual(12);
    expect(finish.usage.promptTokens).toBe(promptTokensOf(engineRequest()));
    // The byte-level vocabulary: the prompt's tokens are its template's bytes, the control tokens one each.
    expect(finish.usage.promptTokens).toBeGreaterThan('Hello there'.length);
    if (finish.reason === 'length') expect(finish.usage.completionTokens).toBe(12);
  });

  it('answers the same with temperature 0, and with the same seed', async () => {
    const first = textOf(await collect(engine, engineRequest()));
    expect(textOf(await collect(engine, engineRequest()))).toBe(first);
    const seeded = engineRequest({ temperature: 1, topP: 0.9, seed: 7 });
    expect(textOf(await collect(engine, seeded))).toBe(textOf(await collect(engine, seeded)));
  });

  it('stops before a stop sequence, leaving it out', async () => {
    const request = engineRequest({ maxTokens: 24, messages: [{ role: 'user', content: 'Stop me' }] });
    const whole = textOf(await collect(engine, request));
    // A piece of the greedy answer, from its middle: the same answer with it as a stop ends before it.
    const stop = [...whole].slice(4, 6).join('');
    expect(stop.length).toBeGreaterThan(0);
    const events = await collect(engine, { ...request, stop: [stop] });
    expect(textOf(events)).toBe(whole.slice(0, whole.indexOf(stop)));
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('stops at max_tokens with finish reason length', async () => {
    const events = await collect(engine, engineRequest({ maxTokens: 3, messages: [{ role: 'user', content: 'Count' }] }));
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: 'finish' });
    if (finish?.type === 'finish' && finish.reason === 'length') expect(finish.usage.completionTokens).toBe(3);
  });

  it('forces a named tool call whose arguments validate against the tool schema', async () => {
    const parameters = {
      type: 'object',
      properties: { city: { enum: ['Oslo', 'Paris', 'Lima'] }, metric: { type: 'boolean' } },
      required: ['city', 'metric'],
      additionalProperties: false,
    };
    const request = engineRequest({
      maxTokens: 64,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters } }],
      toolChoice: { type: 'function', function: { name: 'get_weather' } },
    });
    const events = await collect(engine, request);
    // The model reads of the tool in a system note; the count before generating says as much as the usage.
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && finish.usage.promptTokens).toBe(promptTokensOf(request));
    expect(promptTokensOf(request)).toBeGreaterThan(promptTokensOf(engineRequest()) + 'The weather in a city.'.length);
    const calls = events.filter((event) => event.type === 'tool-call');
    expect(calls[0]).toMatchObject({ index: 0, name: 'get_weather' });
    const argumentsText = calls.map((event) => (event.type === 'tool-call' ? event.argumentsDelta : '')).join('');
    expect(validateWithSchema(parameters, JSON.parse(argumentsText))).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
  });

  it('with tool_choice auto, documents the tools in the prompt and lets the model answer', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_time', description: 'The time in a zone.', parameters: { type: 'object', properties: { zone: { enum: ['UTC', 'CET'] } }, required: ['zone'] } } }];
    const withTools = engineRequest({ tools, toolChoice: 'auto', maxTokens: 8 });
    expect(promptTokensOf(withTools)).toBeGreaterThan(promptTokensOf(engineRequest({ tools, toolChoice: 'none' })) + 'get_time'.length);
    // 512 tokens of context hold no documented tools (one token per byte): a 400 saying so.
    await expect(collect(engine, withTools)).rejects.toMatchObject({ code: 'invalid_value', status: 400, param: 'messages', message: expect.stringMatching(/^The prompt is \d+ tokens \(with the chat template and the tools\), more than this model's context of 512 tokens/) });
    const roomy = createLlamaEngine({ modelPath: model.path, contextSize: 4096, threads: 1 });
    onTestFinished(() => roomy.dispose());
    const events = await collect(roomy, withTools);
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: 'finish' });
    // A random model rarely starts a call; when it does, its arguments are grammar-bound.
    const calls = events.filter((event) => event.type === 'tool-call');
    if (calls.length > 0) expect(finish).toMatchObject({ reason: 'tool_calls' });
  });

  it('answers response_format json_schema with JSON that validates', async () => {
    const schema = { type: 'object', properties: { mood: { enum: ['calm', 'busy'] }, ok: { type: 'boolean' } }, required: ['mood', 'ok'], additionalProperties: false };
    const events = await collect(engine, engineRequest({ maxTokens: 64, responseFormat: { type: 'json_schema', json_schema: { name: 'mood', schema } } }));
    expect(validateWithSchema(schema, JSON.parse(textOf(events)))).toEqual([]);
  });
});
