import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeUpstream } from './fake-upstream.js';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
import { startTracing } from '../src/request-observers.js';
import { startServerProcess } from './server-process.js';

const question = { messages: [{ role: 'user', content: 'Say hello.' }] };
const serverKind = 2;
const clientKind = 3;

function chat(origin: string, apiKey: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }), ...headers },
    body: JSON.stringify(body),
  });
}

describe('traces over OTLP/HTTP (a real process, a real receiver)', () => {
  it('should export a chat span per request with gen_ai attributes, honour the client traceparent and carry it upstream', async () => {
    const receiver = await startOtlpReceiver();
    onTestFinished(() => receiver.close());
    const upstream = await startFakeUpstream('Hello from upstream.');
    onTestFinished(() => upstream.close());
    const server = await startServerProcess(
      { models: { 'quantum-flash': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'llama3.2' } } },
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'quantum-chat-test' },
    );
    onTestFinished(() => server.dispose());
    const liveKey = await createLiveKey(server.dataDir);

    // 1. An upstream model, called with the client's own trace context.
    const clientTraceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const upstreamAnswer = await chat(server.origin, liveKey, { model: 'quantum-flash', ...question }, { traceparent: `00-${clientTraceId}-${clientSpanId}-01` });
    expect(upstreamAnswer.status).toBe(200);
    const upstreamRequestId = upstreamAnswer.headers.get('x-request-id');
    await upstreamAnswer.json();
    // 2. A stream from the reference engine, no trace context: a new trace.
    const streamed = await chat(server.origin, server.firstStartKey!, { model: 'quantum-reasoner', ...question, stream: true });
    const streamedRequestId = streamed.headers.get('x-request-id');
    await streamed.text();
    // 3. A refused request: a span too, its status as the error type.
    const refused = await chat(server.origin, null, { model: 'quantum-lite', ...question });
    expect(refused.status).toBe(401);
    const refusedRequestId = refused.headers.get('x-request-id');

    const byRequest = (requestId: string | null) => receiver.spans.find((span) => span.attributes['quantum_chat.request_id'] === requestId);
    await expect.poll(() => [upstreamRequestId, streamedRequestId, refusedRequestId].every((id) => byRequest(id) !== undefined), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => receiver.spans.some((span) => span.kind === clientKind), { timeout: 15_000 }).toBe(true);
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);

    const chatSpan = byRequest(upstreamRequestId)!;
    expect(chatSpan).toMatchObject({ name: 'chat quantum-flash', kind: serverKind, traceId: clientTraceId, parentSpanId: clientSpanId, service: 'quantum-chat-test' });
    expect(chatSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'quantum-flash',
      'gen_ai.response.model': 'quantum-flash',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop'],
      'http.response.status_code': 200,
      'quantum_chat.stream': false,
    });
    // Organisations and keys stay out of traces.
    expect(JSON.stringify(chatSpan)).not.toContain(liveKey.slice(-8));

    const upstreamSpan = receiver.spans.find((span: ReceivedSpan) => span.kind === clientKind)!;
    expect(upstreamSpan).toMatchObject({ name: 'chat llama3.2', traceId: clientTraceId, parentSpanId: chatSpan.spanId });
    expect(upstreamSpan.attributes).toMatchObject({
      'gen_ai.request.model': 'llama3.2',
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    // The upstream got the trace: same trace id, the upstream span as parent.
    expect(upstream.requests[0]?.traceparent).toBe(`00-${clientTraceId}-${upstreamSpan.spanId}-01`);

    const streamSpan = byRequest(streamedRequestId)!;
    expect(streamSpan.traceId).not.toBe(clientTraceId);
    expect(streamSpan.parentSpanId).toBeUndefined();
    expect(streamSpan).toMatchObject({ name: 'chat quantum-reasoner', kind: serverKind });
    expect(streamSpan.attributes).toMatchObject({ 'quantum_chat.stream': true, 'gen_ai.response.finish_reasons': ['stop'] });
    expect(streamSpan.attributes['gen_ai.usage.reasoning_tokens']).toBeGreaterThan(0);
    expect(streamSpan.attributes['gen_ai.server.time_to_first_token']).toEqual(expect.any(Number));

    const refusedSpan = byRequest(refusedRequestId)!;
    expect(refusedSpan).toMatchObject({ name: 'chat' });
    expect(refusedSpan.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': '401' });
  }, 60_000);

  it('should load no OpenTelemetry module when no OTLP endpoint is set', async () => {
    expect(await startTracing({})).toBeUndefined();
    expect(await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
  });
});
