import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { generateApiKey, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { trickleRequest, type TrickleOutcome } from '@quantum-chat/conformance';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import Fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fastifyQuantumChat } from '../src/index.js';

const requestTimeoutMs = 300;
const headers = { authorization: `Bearer ${generateApiKey('test')}` };

function expectTimedOut(outcome: TrickleOutcome): void {
  expect(outcome.closedByServer).toBe(true);
  expect(outcome.status).toBe(408);
  expect(outcome.headers['x-request-id']).toMatch(/^req_/);
  expect(errorEnvelopeSchema.parse(JSON.parse(outcome.body)).error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
}

describe('the request timeout in a Fastify app (real sockets trickling bytes)', () => {
  it('should answer trickling headers and bodies 408 request_timeout in the envelope and close them (Fastify times nothing by default)', async () => {
    const app = Fastify();
    onTestFinished(() => app.close());
    await app.register(fastifyQuantumChat, { prefix: '/v1', accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine(), requestTimeoutMs });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const outcomes = await Promise.all([
      ...Array.from({ length: 5 }, () => trickleRequest({ origin, path: '/v1/chat/completions', phase: 'headers', giveUpAfterMs: 15_000 })),
      ...Array.from({ length: 10 }, () => trickleRequest({ origin, path: '/v1/chat/completions', headers, phase: 'body', giveUpAfterMs: 15_000 })),
    ]);
    console.log(`fastify, request timeout ${requestTimeoutMs} ms: held ${Math.round(Math.max(...outcomes.map((outcome) => outcome.heldMs)))} ms at most`);
    for (const outcome of outcomes) expectTimedOut(outcome);
    expect((await fetch(`${origin}/v1/models`)).status).toBe(200);
  }, 30_000);

  it('should leave a timeout the host set on its server alone', async () => {
    const app = Fastify({ requestTimeout: 5000 });
    onTestFinished(() => app.close());
    await app.register(fastifyQuantumChat, { prefix: '/v1', accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine(), requestTimeoutMs });
    expect(app.server.requestTimeout).toBe(5000);
  });
});
