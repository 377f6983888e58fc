/**
 * Structured outputs and logprobs through the `openai` SDK (6.x and 7.x) against the real
 * server: `chat.completions.parse()` and the `stream()` helper with a zod schema
 * (`zodResponseFormat`), in both stream formats, and `logprobs` / `top_logprobs`.
 */
import { zodResponseFormat as zodResponseFormat6 } from 'openai/helpers/zod';
import { zodResponseFormat as zodResponseFormat7 } from 'openai7/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { streamFormats } from './support/fixtures.js';
import { startInteropServer, type InteropServer } from './support/interop-server.js';
import { openaiClients } from './support/openai-clients.js';

let server: InteropServer;

beforeAll(async () => {
  server = await startInteropServer();
});

afterAll(async () => {
  await server?.close();
});

const Place = z.object({
  city: z.string(),
  country: z.enum(['France', 'Japan', 'Norway']),
  population: z.number().int().min(0),
  landmarks: z.array(z.string()),
  visited: z.boolean(),
});

const messages = [{ role: 'user' as const, content: 'Tell me about life in Tokyo, Japan, as JSON.' }];
const helpers = { openai: zodResponseFormat6, openai7: zodResponseFormat7 } as const;
const modern = openaiClients.filter((sdk): sdk is typeof sdk & { packageName: keyof typeof helpers } => sdk.packageName in helpers);

describe.each(modern)('openai@$version (installed as $packageName): structured outputs', (sdk) => {
  const zodResponseFormat = helpers[sdk.packageName];
  // The SDK's own types, not the suite's common subset: `parse()` is what is under test.
  const client = (path = '/v1', headers: Record<string, string> = {}) =>
    sdk.create({ apiKey: server.testKey, baseURL: `${server.origin}${path}`, defaultHeaders: headers, maxRetries: 0 }) as any;

  it.each(['quantum-flash', 'quantum-reasoner'])('should parse a zod schema answer with chat.completions.parse() (%s)', async (model) => {
    const completion = await client().chat.completions.parse({ model, messages, response_format: zodResponseFormat(Place, 'place') });
    const message = completion.choices[0].message;
    expect(message.refusal ?? null).toBeNull();
    expect(Place.parse(message.parsed)).toEqual(message.parsed);
    expect(message.parsed).toMatchObject({ city: 'Tokyo', country: 'Japan' });
    expect(completion.choices[0].finish_reason).toBe('stop');
  });

  describe.each(streamFormats)('$label', (format) => {
    it('should parse the streamed answer with the stream() helper', async () => {
      const stream = client(format.path, format.headers as Record<string, string>).chat.completions.stream({
        model: 'quantum-lite',
        messages,
        response_format: zodResponseFormat(Place, 'place'),
      });
      const final = await stream.finalChatCompletion();
      expect(Place.parse(final.choices[0].message.parsed)).toMatchObject({ city: 'Tokyo', country: 'Japan' });
    });
  });

  it('should return json_object answers that parse as JSON', async () => {
    const completion = await client().chat.completions.create({ model: 'quantum-lite', messages, response_format: { type: 'json_object' } });
    expect(JSON.parse(completion.choices[0].message.content)).toEqual({ answer: expect.any(String) });
  });

  it('should return logprobs with top_logprobs, streamed and not', async () => {
    const completion = await client().chat.completions.create({ model: 'quantum-lite', messages, logprobs: true, top_logprobs: 2 });
    const content = completion.choices[0].logprobs.content as { token: string; logprob: number; top_logprobs: unknown[] }[];
    expect(content.map((entry) => entry.token).join('')).toBe(completion.choices[0].message.content);
    expect(content.every((entry) => entry.logprob < 0 && entry.top_logprobs.length === 2)).toBe(true);

    const stream = await client().chat.completions.create({ model: 'quantum-lite', messages, logprobs: true, top_logprobs: 2, stream: true });
    const streamed: { token: string }[] = [];
    for await (const chunk of stream) for (const entry of chunk.choices[0]?.logprobs?.content ?? []) streamed.push(entry);
    expect(streamed).toEqual(content);
  });

  it('should refuse a response format whose schema is not a JSON Schema, naming it', async () => {
    const BadRequest = sdk.errors.BadRequestError;
    const error = await client()
      .chat.completions.create({ model: 'quantum-lite', messages, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 42 } } } })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(BadRequest);
    expect(error).toMatchObject({ status: 400, param: 'response_format.json_schema.schema', code: 'invalid_value' });
  });
});
