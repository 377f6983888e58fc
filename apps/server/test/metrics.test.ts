import { chatCompletionChunkSchema, chatCompletionSchema } from '@quantum-chat/core/schemas';
import { generateApiKey, type Usage } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, promtoolCheckMetrics, valueOf, type Sample } from './prometheus-text.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { decodeSse } from './sse.js';

let server: ServerProcess;
let testKey: string;

beforeAll(async () => {
  // Paced, so that a stream is still open when a test looks at the active-streams gauge.
  server = await startServerProcess({ reference: { tokensPerSecond: 50 } });
  testKey = server.firstStartKey!;
}, 45_000);

afterAll(async () => {
  await server?.dispose();
});

const messages = [{ role: 'user', content: 'Say something about the weather in two sentences.' }];

async function post(body: Record<string, unknown>, apiKey: string | null = testKey): Promise<Response> {
  return fetch(`${server.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }) },
    body: JSON.stringify(body),
  });
}

/** What the traffic should add up to, from the responses the clients got. */
interface Expected {
  requests: Map<string, number>;
  tokens: Map<string, number>;
  streams: Map<string, number>;
  answers: Map<string, number>;
}

function add(map: Map<string, number>, key: string, amount = 1): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}

function addUsage(expected: Expected, model: string, usage: Usage): void {
  add(expected.tokens, `${model}/input`, usage.prompt_tokens);
  add(expected.tokens, `${model}/output`, usage.completion_tokens);
  add(expected.tokens, `${model}/reasoning`, usage.completion_tokens_details?.reasoning_tokens ?? 0);
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const response = await fetch(`${server.origin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, samples: parsePrometheusText(text) };
}

describe('GET /metrics (a real process, scraped over HTTP)', () => {
  it('should count mixed traffic exactly, pass promtool, and never label an organisation or key', async () => {
    const expected: Expected = { requests: new Map(), tokens: new Map(), streams: new Map(), answers: new Map() };
    const json = ['quantum-lite', 'quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro'];
    const streamed = ['quantum-lite', 'quantum-reasoner', 'quantum-reasoner'];
    const sent = [
      ...json.map(async (model) => {
        const response = await post({ model, messages });
        const completion = chatCompletionSchema.parse(await response.json());
        add(expected.requests, `${model}/200/false`);
        add(expected.answers, model);
        addUsage(expected, model, completion.usage);
      }),
      ...streamed.map(async (model) => {
        const response = await post({ model, messages, stream: true });
        const events = decodeSse(await response.text());
        const last = chatCompletionChunkSchema.parse(JSON.parse(events.at(-2)!.data));
        add(expected.requests, `${model}/200/true`);
        add(expected.answers, model);
        add(expected.streams, model);
        addUsage(expected, model, last.usage!);
      }),
    ];
    await Promise.all(sent);
    // Refused requests: no key, an unknown key, an invalid body, an unknown model (streamed).
    expect((await post({ model: 'quantum-lite', messages }, null)).status).toBe(401);
    expect((await post({ model: 'quantum-lite', messages, stream: true }, generateApiKey('live'))).status).toBe(401);
    expect((await post({ model: 'quantum-lite', messages: [] })).status).toBe(400);
    expect((await post({ model: 'gpt-unknown-model', messages, stream: true })).status).toBe(404);
    add(expected.requests, 'unknown/401/false');
    add(expected.requests, 'unknown/401/true');
    add(expected.requests, 'unknown/400/false');
    add(expected.requests, 'unknown/404/true');

    const { text, samples } = await scrape();
    const check = await promtoolCheckMetrics(text);
    expect(check.output).toBe('');
    expect(check.code).toBe(0);

    const counted = samples.filter((sample) => sample.name === 'quantum_chat_requests_total');
    expect(Object.fromEntries(counted.map((sample) => [`${sample.labels.model}/${sample.labels.status}/${sample.labels.stream}`, sample.value]))).toEqual(
      Object.fromEntries(expected.requests),
    );
    const tokens = samples.filter((sample) => sample.name === 'quantum_chat_tokens_total');
    expect(Object.fromEntries(tokens.map((sample) => [`${sample.labels.model}/${sample.labels.type}`, sample.value]))).toEqual(
      Object.fromEntries([...expected.tokens].filter(([, value]) => value > 0)),
    );
    for (const [model, answers] of expected.answers) {
      const byModel = { gen_ai_request_model: model };
      expect(valueOf(samples, 'gen_ai_server_request_duration_seconds_count', byModel)).toBe(answers);
      expect(valueOf(samples, 'gen_ai_server_time_to_first_token_seconds_count', byModel)).toBe(expected.streams.get(model) ?? 0);
      expect(valueOf(samples, 'gen_ai_server_time_per_output_token_seconds_count', byModel)).toBe(expected.streams.get(model) ?? 0);
      expect(valueOf(samples, 'gen_ai_server_request_duration_seconds_bucket', { ...byModel, le: '+Inf' })).toBe(answers);
    }
    expect(valueOf(samples, 'gen_ai_server_request_duration_seconds_count', { gen_ai_request_model: 'unknown' })).toBe(4);
    expect(valueOf(samples, 'quantum_chat_active_streams')).toBe(0);
    // Process metrics come along.
    expect(samples.some((sample) => sample.name === 'process_cpu_seconds_total')).toBe(true);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    // Organisations and keys are never labels.
    const labelNames = new Set(samples.flatMap((sample) => Object.keys(sample.labels)));
    for (const name of labelNames) expect(name).not.toMatch(/org|key|user/i);
    expect(text).not.toContain('default');
    expect(text).not.toContain(testKey.slice(-8));
  }, 60_000);

  it('should count a stream as active while it is open', async () => {
    const response = await post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper.' }], stream: true });
    const reader = response.body!.getReader();
    await reader.read();
    expect(valueOf((await scrape()).samples, 'quantum_chat_active_streams')).toBe(1);
    await reader.cancel();
    // The server settles the stream once it sees the connection go.
    await expect.poll(async () => valueOf((await scrape()).samples, 'quantum_chat_active_streams'), { timeout: 10_000 }).toBe(0);
  });

  it('should refuse other methods with 405 in the envelope', async () => {
    const response = await fetch(`${server.origin}/metrics`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect((await response.json()).error.code).toBe('method_not_allowed');
  });
});

describe('metrics: false', () => {
  it('should serve no /metrics', async () => {
    const quiet = await startServerProcess({ metrics: false });
    try {
      const response = await fetch(`${quiet.origin}/metrics`);
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('unknown_url');
    } finally {
      await quiet.dispose();
    }
  }, 45_000);
});
