import type { Server } from 'node:http';
import { createChatHandler, generateApiKey, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import express, { type Router } from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createExpressRouter } from '../src/index.js';

const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine() });

async function modelsThrough(router: Router): Promise<{ status: number; ids: string[] }> {
  const app = express();
  app.use('/v1', router);
  const server: Server = app.listen(0, '127.0.0.1');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  onTestFinished(() => server.closeAllConnections());
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/models`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${generateApiKey('test')}` } });
  const body = (await response.json()) as { data: { id: string }[] };
  return { status: response.status, ids: body.data.map((model) => model.id) };
}

describe('createExpressRouter options', () => {
  it('should serve an existing handler given as { handler }, as every host takes it', async () => {
    const served = await modelsThrough(createExpressRouter({ handler }));
    expect(served.status).toBe(200);
    expect(served.ids).toContain('quantum-reasoner');
  });

  it('should still serve a bare handler, the deprecated shape, as { handler }', async () => {
    expect(await modelsThrough(createExpressRouter(handler))).toEqual(await modelsThrough(createExpressRouter({ handler })));
  });
});
