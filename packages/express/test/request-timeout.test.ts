import type { Server } from 'node:http';
import { createChatHandler, generateApiKey, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { applyRequestTimeout } from '@quantum-chat/core/node';
import { trickleRequest, type TrickleOutcome } from '@quantum-chat/conformance';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createExpressRouter } from '../src/index.js';

const requestTimeoutMs = 300;
const headers = { authorization: `Bearer ${generateApiKey('test')}` };

/** An Express app serving the handler at /v1; `timed`: the host applies the handler's timeout to its server. */
async function startApp(timed: boolean): Promise<string> {
  const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine(), requestTimeoutMs });
  const app = express();
  app.use('/v1', createExpressRouter({ handler }));
  const server: Server = app.listen(0, '127.0.0.1');
  if (timed) applyRequestTimeout(server, handler);
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  onTestFinished(() => server.closeAllConnections());
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

function expectTimedOut(outcome: TrickleOutcome): void {
  expect(outcome.closedByServer).toBe(true);
  expect(outcome.status).toBe(408);
  expect(outcome.headers['x-request-id']).toMatch(/^req_/);
  expect(errorEnvelopeSchema.parse(JSON.parse(outcome.body)).error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
}

describe('the request timeout in an Express app (real sockets trickling bytes)', () => {
  it('should answer a trickling body 408 request_timeout and close it, with no server setting (the core reads the body)', async () => {
    const origin = await startApp(false);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => trickleRequest({ origin, path: '/v1/chat/completions', headers, phase: 'body', giveUpAfterMs: 15_000 })));
    console.log(`express, core's body timeout ${requestTimeoutMs} ms: held ${Math.round(Math.max(...outcomes.map((outcome) => outcome.heldMs)))} ms at most`);
    for (const outcome of outcomes) expectTimedOut(outcome);
  }, 30_000);

  it('should answer trickling headers and bodies 408 in the envelope once the host applies the timeout to its server', async () => {
    const origin = await startApp(true);
    const outcomes = await Promise.all([
      ...Array.from({ length: 5 }, () => trickleRequest({ origin, path: '/v1/chat/completions', phase: 'headers', giveUpAfterMs: 15_000 })),
      ...Array.from({ length: 5 }, () => trickleRequest({ origin, path: '/v1/chat/completions', headers, phase: 'body', giveUpAfterMs: 15_000 })),
    ]);
    for (const outcome of outcomes) expectTimedOut(outcome);
    // A request that arrives in time is answered as usual.
    const answered = await fetch(`${origin}/v1/models`);
    expect(answered.status).toBe(200);
  }, 30_000);
});
