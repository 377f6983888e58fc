import { connect } from 'node:net';
import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { trickleRequest, type TrickleOutcome } from '@quantum-chat/conformance';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startInProcessServer } from './in-process-server.js';
import { openStream } from './sse.js';

/** Short, so that no test waits out the 30 s default. */
const requestTimeoutMs = 300;

function expectTimedOut(outcome: TrickleOutcome): void {
  expect(outcome.closedByServer).toBe(true);
  expect(outcome.status).toBe(408);
  expect(outcome.headers['x-request-id']).toMatch(/^req_/);
  expect(outcome.headers.connection).toBe('close');
  expect(errorEnvelopeSchema.parse(JSON.parse(outcome.body)).error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout', param: null });
}

const describeHeld = (outcomes: TrickleOutcome[]) => `held ${Math.round(Math.min(...outcomes.map((o) => o.heldMs)))}–${Math.round(Math.max(...outcomes.map((o) => o.heldMs)))} ms`;

describe('the ready server\'s request timeout (real sockets trickling bytes)', () => {
  it('should answer 408 request_timeout and close every connection whose body or headers trickle, and count them', async () => {
    const server = await startInProcessServer({ requestTimeoutMs });
    onTestFinished(() => server.close());
    const headers = { authorization: `Bearer ${server.testKey}` };
    const bodies = Array.from({ length: 40 }, () => trickleRequest({ origin: server.origin, path: '/v1/chat/completions', headers, phase: 'body', giveUpAfterMs: 15_000 }));
    const heads = Array.from({ length: 10 }, () => trickleRequest({ origin: server.origin, path: '/v1/chat/completions', phase: 'headers', giveUpAfterMs: 15_000 }));
    const trickledBodies = await Promise.all(bodies);
    const trickledHeads = await Promise.all(heads);
    console.log(`request timeout ${requestTimeoutMs} ms: 40 trickled bodies ${describeHeld(trickledBodies)}, 10 trickled heads ${describeHeld(trickledHeads)}`);
    for (const outcome of [...trickledBodies, ...trickledHeads]) expectTimedOut(outcome);
    // The requests whose heads arrived reached the handler: they are counted as the 408s they were.
    const metrics = await (await fetch(`${server.origin}/metrics`)).text();
    expect(metrics).toMatch(/quantum_chat_requests_total\{model="unknown",status="408",stream="false"\} 40/);
    // The server still answers.
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
  }, 60_000);

  it('should not cut a stream that lasts longer than the timeout, nor an idle keep-alive connection', async () => {
    const server = await startInProcessServer({ requestTimeoutMs, reference: { tokensPerSecond: 40 } });
    onTestFinished(() => server.close());
    const started = performance.now();
    const stream = await openStream(`${server.origin}/v1/chat/completions`, server.testKey, {
      model: 'quantum-lite',
      messages: [{ role: 'user', content: 'Tell me about the history of quantum computing in detail.' }],
      max_tokens: 40,
    });
    expect(stream.status).toBe(200);
    expect(await stream.body).toMatch(/data: \[DONE\]\n\n$/);
    expect(performance.now() - started).toBeGreaterThan(requestTimeoutMs);

    // Two requests on one connection, idle for twice the timeout in between.
    const { hostname, port } = new URL(server.origin);
    const socket = connect({ host: hostname, port: Number(port) });
    onTestFinished(() => void socket.destroy());
    let received = '';
    socket.setEncoding('utf8').on('data', (text: string) => (received += text));
    const ask = () => socket.write(`GET /healthz HTTP/1.1\r\nhost: ${hostname}:${port}\r\n\r\n`);
    ask();
    await expect.poll(() => received.match(/HTTP\/1\.1 200/g)?.length ?? 0).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, requestTimeoutMs * 2));
    ask();
    await expect.poll(() => received.match(/HTTP\/1\.1 200/g)?.length ?? 0).toBe(2);
    expect(received).not.toContain('408');
  }, 60_000);
});
