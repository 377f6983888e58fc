/**
 * The Responses API through the `openai` SDK (6.x and 7.x) against the real server over HTTP:
 * `responses.create` (JSON and stream), the `responses.stream()` helper with `finalResponse()`,
 * `responses.parse()` with a zod `text.format`, a function-tool round trip (by
 * `previous_response_id` and by explicit input items), retrieve, delete, input items,
 * background + cancel, and resuming a stream with `starting_after`.
 */
import { zodTextFormat as zodTextFormat6 } from 'openai/helpers/zod';
import { zodTextFormat as zodTextFormat7 } from 'openai7/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createCompatRecorder, type CompatCell } from './support/compat-recorder.js';
import { question, weatherQuestion, weatherResult, weatherTool } from './support/fixtures.js';
import { startInteropServer, type InteropServer } from './support/interop-server.js';
import { openaiClients } from './support/openai-clients.js';

const compat = createCompatRecorder('openai-responses');
let server: InteropServer;
/** Paced (a few tokens a second), so that a background response is still running when it is cancelled. */
let slowServer: InteropServer;

beforeAll(async () => {
  [server, slowServer] = await Promise.all([startInteropServer(), startInteropServer({ reference: { tokensPerSecond: 10 } })]);
});

afterAll(async () => {
  compat.flush();
  await Promise.all([server?.close(), slowServer?.close()]);
});

const helpers = { openai: zodTextFormat6, openai7: zodTextFormat7 } as const;
const modern = openaiClients.filter((sdk): sdk is typeof sdk & { packageName: keyof typeof helpers } => sdk.packageName in helpers);

/** The Responses API's function tool: flat, not nested under `function`. */
const responsesWeatherTool = { type: 'function' as const, name: weatherTool.function.name, description: weatherTool.function.description, parameters: weatherTool.function.parameters, strict: true };

const Place = z.object({ city: z.string(), country: z.enum(['France', 'Japan', 'Norway']), population: z.number().int().min(0) });

/** Every event of a stream, in order. */
async function eventsOf(stream: AsyncIterable<any>): Promise<any[]> {
  const events: any[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The answer's text, as the SDK's `output_text` would give it. */
const outputText = (response: any) =>
  response.output
    .filter((item: any) => item.type === 'message')
    .flatMap((item: any) => item.content)
    .map((part: any) => part.text)
    .join('');

describe.each(modern)('openai@$version (installed as $packageName): the Responses API', (sdk) => {
  const zodTextFormat = helpers[sdk.packageName];
  // The SDK's own types are what is under test: `responses` is not in the suite's common subset.
  const prove = (feature: string, detail?: string) => compat.prove({ client: 'openai', version: sdk.version, format: 'any', feature: `responses: ${feature}`, outcome: 'works', ...(detail ? { detail } : {}) } satisfies CompatCell);
  const client = (target = server) => sdk.create({ apiKey: target.testKey, baseURL: `${target.origin}/v1`, maxRetries: 0 }) as any;

  it('should answer responses.create as JSON: a completed Response with output_text and usage', async () => {
    const response = await client().responses.create({ model: 'quantum-lite', input: question });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'quantum-lite', store: true, error: null, incomplete_details: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe(outputText(response));
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage.total_tokens).toBe(response.usage.input_tokens + response.usage.output_tokens);
    prove('create');
  });

  it('should stream responses.create({ stream: true }): named events in order with rising sequence numbers', async () => {
    const events = await eventsOf(await client().responses.create({ model: 'quantum-flash', input: question, stream: true }));
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_item.added');
    expect(types).toContain('response.content_part.added');
    expect(types).toContain('response.output_text.done');
    const sequence = events.map((event) => event.sequence_number);
    expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
    expect(new Set(sequence).size).toBe(sequence.length);
    const deltas = events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('');
    expect(deltas).toBe(outputText(events.at(-1).response));
    expect(deltas.length).toBeGreaterThan(0);
    prove('stream');
  });

  it('should build the same Response with responses.stream() and finalResponse(), the reasoning item first for the reasoner', async () => {
    const whole = await client().responses.create({ model: 'quantum-reasoner', input: question, store: false });
    const stream = client().responses.stream({ model: 'quantum-reasoner', input: question, store: false });
    let text = '';
    stream.on('response.output_text.delta', (event: any) => (text += event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output.map((item: any) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output[0].summary[0].text.length).toBeGreaterThan(0);
    expect(final.output[0].summary[0].text).toBe(whole.output[0].summary[0].text);
    expect(final.output_text).toBe(whole.output_text);
    expect(text).toBe(whole.output_text);
    expect(final.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    prove('stream helper', '`responses.stream()` + `finalResponse()`');
    prove('reasoning', 'a `reasoning` item with a summary, before the message');
  });

  it('should parse a zod text.format with responses.parse()', async () => {
    const response = await client().responses.parse({ model: 'quantum-flash', input: 'Tell me about life in Tokyo, Japan, as JSON.', text: { format: zodTextFormat(Place, 'place') } });
    expect(response.status).toBe('completed');
    expect(Place.parse(response.output_parsed)).toEqual(response.output_parsed);
    expect(response.output_parsed).toMatchObject({ city: 'Tokyo', country: 'Japan' });
    prove('structured output', '`responses.parse()` with `zodTextFormat`');
  });

  it('should run a function tool round trip by previous_response_id', async () => {
    const first = await client().responses.create({ model: 'quantum-flash', input: weatherQuestion, tools: [responsesWeatherTool] });
    const call = first.output.find((item: any) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(JSON.parse(call.arguments)).toMatchObject({ city: expect.any(String) });
    const second = await client().responses.create({
      model: 'quantum-flash',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: weatherResult }],
      tools: [responsesWeatherTool],
    });
    expect(second.status).toBe('completed');
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output.some((item: any) => item.type === 'function_call')).toBe(false);
    expect(second.output_text).toMatch(/18|cloudy/);
    prove('tools', 'round trip by `previous_response_id`');
  });

  it('should run the same round trip with explicit input items and store: false', async () => {
    const input: any[] = [{ role: 'user', content: weatherQuestion }];
    const first = await client().responses.create({ model: 'quantum-flash', input, tools: [responsesWeatherTool], store: false });
    const call = first.output.find((item: any) => item.type === 'function_call');
    expect(call).toBeDefined();
    input.push(call, { type: 'function_call_output', call_id: call.call_id, output: weatherResult });
    const second = await client().responses.create({ model: 'quantum-flash', input, tools: [responsesWeatherTool], store: false });
    expect(second.status).toBe('completed');
    expect(second.output_text).toMatch(/18|cloudy/);
    // Not stored: nothing to retrieve.
    await expect(client().responses.retrieve(second.id)).rejects.toBeInstanceOf(sdk.errors.NotFoundError);
    prove('tools', 'round trip with explicit input items');
  });

  it('should retrieve a stored response, list its input items, delete it, and then answer 404', async () => {
    const created = await client().responses.create({ model: 'quantum-lite', input: question, metadata: { suite: 'interop' } });
    const retrieved = await client().responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, status: 'completed', metadata: { suite: 'interop' } });
    expect(retrieved.output_text).toBe(created.output_text);
    const items = await client().responses.inputItems.list(created.id);
    expect(items.data.length).toBe(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user' });
    const deleted = await client().responses.delete(created.id);
    // openai 6 answers `void` for DELETE, 7 the body: either way the response is gone.
    if (deleted !== undefined && deleted !== null) expect(deleted).toMatchObject({ id: created.id, deleted: true });
    const error = await client().responses.retrieve(created.id).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.errors.NotFoundError);
    expect((error as any).code).toBe('response_not_found');
    prove('stored state', 'retrieve, input items, delete');
  });

  it('should answer background: true at once (queued) and stop it with cancel', async () => {
    const slow = client(slowServer);
    const queued = await slow.responses.create({ model: 'quantum-reasoner', input: 'Explain in detail how tides work, step by step.', background: true, max_output_tokens: 2000 });
    expect(['queued', 'in_progress']).toContain(queued.status);
    expect(queued.background).toBe(true);
    const cancelled = await slow.responses.cancel(queued.id);
    expect(cancelled).toMatchObject({ id: queued.id, status: 'cancelled' });
    expect((await slow.responses.retrieve(queued.id)).status).toBe('cancelled');
    prove('background');
  });

  it('should resume a stored streamed response with starting_after, without gap or repeat', async () => {
    const whole = await eventsOf(await client().responses.create({ model: 'quantum-reasoner', input: question, stream: true }));
    const responseId = whole[0].response.id;
    const after = whole[Math.floor(whole.length / 2)].sequence_number;
    const rest = await eventsOf(await client().responses.retrieve(responseId, { stream: true, starting_after: after }));
    expect(rest.map((event) => event.sequence_number)).toEqual(whole.filter((event) => event.sequence_number > after).map((event) => event.sequence_number));
    expect(rest.at(-1)).toMatchObject({ type: 'response.completed', response: { id: responseId, status: 'completed' } });
    expect(outputText(rest.at(-1).response)).toBe(outputText(whole.at(-1).response));
    prove('resume', '`retrieve(id, { stream: true, starting_after })`');
  });

  it('should resume a background stream cut off mid-way by its reader (a dropped connection), from the last event seen', async () => {
    const stream = await client(slowServer).responses.create({ model: 'quantum-flash', input: question, stream: true, background: true });
    const seen: any[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'response.output_text.delta') break;
    }
    const responseId = seen[0].response.id;
    const last = seen.at(-1).sequence_number;
    const rest = await eventsOf(await client(slowServer).responses.retrieve(responseId, { stream: true, starting_after: last }));
    expect(rest[0].sequence_number).toBe(last + 1);
    const final = rest.at(-1);
    expect(final.type).toBe('response.completed');
    const text = [...seen, ...rest].filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('');
    expect(text).toBe(outputText(final.response));
    prove('resume', 'a background stream while it runs, after its reader dropped');
  });

  it('should refuse a tool type other than function with a 400 that names it', async () => {
    const error = await client()
      .responses.create({ model: 'quantum-lite', input: question, tools: [{ type: 'web_search' }] })
      .then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.errors.BadRequestError);
    expect((error as Error).message).toContain('web_search');
  });
});
