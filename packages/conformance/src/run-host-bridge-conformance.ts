import { createChatHandler } from '@quantum-chat/core';
import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import type { ChatHandler, ChatHttpRequest, ChatHttpResponse } from '@quantum-chat/core/host';
import type { HostOptions } from '@quantum-chat/core/node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { conformanceKeys, createConformanceAccessControl } from './conformance-keys.js';
import { createReplayEngine } from './replay-engine.js';
import type { ConformanceHost } from './run-server-conformance.js';

/** Starts a Node host adapter with the given options, mounted at `baseUrl`. */
export type StartBridgeHost = (options: HostOptions) => Promise<ConformanceHost>;

const script = '{"type":"content","text":"Hello"}\n{"type":"content","text":" there"}\n{"type":"finish","reason":"stop","usage":{"promptTokens":3,"completionTokens":2,"reasoningTokens":0}}\n';
const streamRequest = JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
const broken = new Error('the bridge broke');
const aTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A real handler over a short replayed answer. */
function realHandler(): ChatHandler {
  return createChatHandler({ accessControl: createConformanceAccessControl(), engine: createReplayEngine(script) });
}

/**
 * The real handler, each stream answer's frames taken over by `frames`, which gets the real
 * frames' iterator (and must end it) and what it yields first.
 */
function withFrames(frames: (real: AsyncIterator<string>, first: string) => AsyncGenerator<string>): ChatHandler {
  const handler = realHandler();
  const handle = async (request: ChatHttpRequest): Promise<ChatHttpResponse> => {
    const response = await handler.handle(request);
    if (!('events' in response)) return response;
    const real = response.events[Symbol.asyncIterator]();
    const first = await real.next();
    return { ...response, events: frames(real, first.done ? '' : first.value) };
  };
  return { ...handler, handle };
}

async function start(startHost: StartBridgeHost, handler: ChatHandler, reported: unknown[]): Promise<string> {
  const host = await startHost({ handler, onBridgeError: (error) => reported.push(error) });
  onTestFinished(() => host.close());
  return `${host.baseUrl}/chat/completions`;
}

function post(url: string, signal?: AbortSignal): Promise<Response> {
  const headers = { authorization: `Bearer ${conformanceKeys.eliteLive}`, 'content-type': 'application/json' };
  return fetch(url, { method: 'POST', headers, body: streamRequest, ...(signal ? { signal } : {}) });
}

/**
 * Registers the tests every Node host adapter passes on the failures of its bridge (the code
 * between the framework and the handler), so they are reported the same way whatever the
 * host: `onBridgeError` gets a handler that rejects (answered 500 in the envelope) and a stream
 * whose frames fail (its connection cut after the frames before), and nothing when the client
 * leaves. Each host starts with `{ handler, onBridgeError }`.
 *
 * @example
 * runHostBridgeConformance('express', async (options) => { const app = express(); app.use('/v1', createExpressRouter(options)); ... });
 */
export function runHostBridgeConformance(hostName: string, startHost: StartBridgeHost): void {
  describe(`bridge failures [${hostName}]`, () => {
    it(`should answer a handler that rejects with 500 in the envelope, and report it to onBridgeError [${hostName}]`, async () => {
      const reported: unknown[] = [];
      const url = await start(startHost, { ...realHandler(), handle: () => Promise.reject(broken) }, reported);
      const response = await post(url);
      expect(response.status).toBe(500);
      expect(errorEnvelopeSchema.parse(await response.json()).error.type).toBe('server_error');
      expect(reported).toEqual([broken]);
    });

    it(`should cut a stream whose frames fail after the frames before, and report it to onBridgeError [${hostName}]`, async () => {
      const reported: unknown[] = [];
      let sent = '';
      const handler = withFrames(async function* (real, first) {
        sent = first;
        yield first;
        await real.return?.();
        // A turn later, as an engine that breaks mid-answer does.
        await aTurn();
        throw broken;
      });
      const response = await post(await start(startHost, handler, reported));
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const readAll = async () => {
        for (let step = await reader.read(); !step.done; step = await reader.read()) text += decoder.decode(step.value, { stream: true });
      };
      // No truthful end is possible: the connection is cut, so reading fails after the frames before.
      await expect(readAll()).rejects.toThrow();
      expect(sent).toContain('data: ');
      expect(text).toBe(sent);
      expect(reported).toEqual([broken]);
    });

    it(`should report nothing when the client leaves mid-stream [${hostName}]`, async () => {
      const reported: unknown[] = [];
      let released!: () => void;
      const framesReleased = new Promise<void>((resolve) => (released = resolve));
      const handler = withFrames(async function* (real, first) {
        await real.return?.();
        try {
          yield first;
          for (;;) {
            await aTurn();
            yield ': still here\n\n';
          }
        } finally {
          released();
        }
      });
      const leaving = new AbortController();
      const response = await post(await start(startHost, handler, reported), leaving.signal);
      await response.body!.getReader().read();
      leaving.abort();
      // The host stops the frames once it sees the client gone.
      await framesReleased;
      expect(reported).toEqual([]);
    });
  });
}
