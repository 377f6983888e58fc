import type { Server } from 'node:http';
import { createChatHandler, errorEnvelopeSchema, generateApiKey, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import type { ChatHandler, ChatHttpResponse } from '@quantum-chat/core/host';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createExpressRouter } from '../src/index.js';

const headers = { authorization: `Bearer ${generateApiKey('test')}`, 'content-type': 'application/json' };
const streamRequest = JSON.stringify({ model: 'quantum-reasoner', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine() });
const broken = new Error('the bridge broke');

/** The real handler, its stream answers' frames replaced (after the headers it chose). */
function withFrames(frames: () => AsyncGenerator<string>): ChatHandler {
  const handle = async (request: Parameters<ChatHandler['handle']>[0]): Promise<ChatHttpResponse> => {
    const response = await handler.handle(request);
    return 'events' in response ? { ...response, events: frames() } : response;
  };
  return { ...handler, handle };
}

async function start(onBridgeError: (error: unknown) => void, custom: ChatHandler): Promise<string> {
  const app = express();
  app.use('/v1', createExpressRouter({ handler: custom, onBridgeError }));
  const server: Server = app.listen(0, '127.0.0.1');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  onTestFinished(() => server.closeAllConnections());
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/chat/completions`;
}

describe('createExpressRouter: failures of the bridge itself', () => {
  it('should answer a handler that rejects with 500 in the envelope, and report it to onBridgeError', async () => {
    const reported: unknown[] = [];
    const url = await start((error) => reported.push(error), { ...handler, handle: () => Promise.reject(broken) });
    const response = await fetch(url, { method: 'POST', headers, body: streamRequest });
    expect(response.status).toBe(500);
    expect(errorEnvelopeSchema.parse(await response.json()).error.type).toBe('server_error');
    expect(reported).toEqual([broken]);
  });

  it('should close a stream whose frames fail after the frames before, and report it to onBridgeError', async () => {
    const reported: unknown[] = [];
    const url = await start(
      (error) => reported.push(error),
      withFrames(async function* () {
        yield 'data: first\n\n';
        // Fails a turn later, as an engine that breaks mid-answer does.
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw broken;
      }),
    );
    const response = await fetch(url, { method: 'POST', headers, body: streamRequest });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The connection is cut (no truthful end is possible): reading fails once the frames before are in.
    await expect(
      (async () => {
        for (let step = await reader.read(); !step.done; step = await reader.read()) text += decoder.decode(step.value);
      })(),
    ).rejects.toThrow();
    expect(text).toBe('data: first\n\n');
    expect(reported).toEqual([broken]);
  });

  it('should report nothing when the client leaves mid-stream', async () => {
    const reported: unknown[] = [];
    let released!: () => void;
    const releasedFrames = new Promise<void>((resolve) => (released = resolve));
    const url = await start(
      (error) => reported.push(error),
      withFrames(async function* () {
        try {
          for (let index = 0; ; index++) {
            yield `data: ${index}\n\n`;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        } finally {
          released();
        }
      }),
    );
    const leaving = new AbortController();
    const response = await fetch(url, { method: 'POST', headers, body: streamRequest, signal: leaving.signal });
    await response.body!.getReader().read();
    leaving.abort();
    await releasedFrames;
    expect(reported).toEqual([]);
  });
});
