/** Idle streams get `: keep-alive` comments, which keep them alive through an idle-timeout proxy. */
import { request } from 'node:http';
import { generateApiKey, insecureAcceptAnyApiKey, type ChatEngine, type ChatEngineEvent } from '@quantum-chat/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startIdleTimeoutProxy, type IdleTimeoutProxy } from '../src/idle-timeout-proxy.js';
import { startExpressHost, startFastifyHost, type Host } from '../src/start-hosts.js';

const key = generateApiKey('test');
const idleMs = 20_000;
const proxyIdleMs = 5_000;
const usage = { promptTokens: 3, completionTokens: 2, reasoningTokens: 0 };

/**
 * An engine that says one word, then thinks silently for `idleMs`, then finishes; or, with
 * `silentFirst`, thinks before its first word (a slow first token: no byte would be sent yet).
 */
function createSlowEngine(silentFirst = false): ChatEngine {
  return {
    async *generate(_request, context) {
      if (!silentFirst) yield { type: 'content', text: 'Thinking' } satisfies ChatEngineEvent;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, idleMs);
        context.signal.addEventListener('abort', () => (clearTimeout(timer), reject(context.signal.reason)), { once: true });
      });
      if (silentFirst) yield { type: 'content', text: 'Thinking' } satisfies ChatEngineEvent;
      yield { type: 'content', text: ' done.' } satisfies ChatEngineEvent;
      yield { type: 'finish', reason: 'stop', usage } satisfies ChatEngineEvent;
    },
  };
}

/** Streams a chat completion through the proxy; resolves with the body as received and whether the connection broke. */
function streamThrough(port: number): Promise<{ body: string; broken: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const outgoing = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (response) => {
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), broken: false }));
        response.on('error', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), broken: true }));
      },
    );
    outgoing.on('error', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), broken: true }));
    outgoing.end(JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'Take your time.' }] }));
  });
}

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of cleanup) await close();
});

async function behindProxy(host: Host): Promise<IdleTimeoutProxy> {
  const proxy = await startIdleTimeoutProxy(host.port, proxyIdleMs);
  cleanup.push(host.close, proxy.close);
  return proxy;
}

describe('keep-alive comments', () => {
  it(`should keep a stream idle for ${idleMs / 1000} s alive through a proxy that drops connections idle for ${proxyIdleMs / 1000} s`, async () => {
    // 2 s instead of the default 15 s, so the test runs in one engine pause, not minutes.
    const options = { engine: createSlowEngine(), accessControl: insecureAcceptAnyApiKey(), keepAliveIntervalMs: 2000 };
    const express = await behindProxy(await startExpressHost(options));
    const fastify = await behindProxy(await startFastifyHost(options));
    // The control: the same stream without keep-alives is cut by the proxy.
    const silent = await behindProxy(await startExpressHost({ ...options, keepAliveIntervalMs: 0 }));
    // Silent before the first token: the keep-alive starts the stream (decisions §4.6).
    const slowStart = { ...options, engine: createSlowEngine(true) };
    const expressSlowStart = await behindProxy(await startExpressHost(slowStart));
    const fastifySlowStart = await behindProxy(await startFastifyHost(slowStart));

    const started = performance.now();
    const [viaExpress, viaFastify, withoutKeepAlive, viaExpressSlowStart, viaFastifySlowStart] = await Promise.all([
      streamThrough(express.port),
      streamThrough(fastify.port),
      streamThrough(silent.port),
      streamThrough(expressSlowStart.port),
      streamThrough(fastifySlowStart.port),
    ]);
    console.log(`streams took ${((performance.now() - started) / 1000).toFixed(1)} s; keep-alives: express ${viaExpress.body.split(': keep-alive\n\n').length - 1}, fastify ${viaFastify.body.split(': keep-alive\n\n').length - 1}; the proxy dropped ${silent.dropped} silent stream(s)`);

    for (const result of [viaExpressSlowStart, viaFastifySlowStart]) expect(result.body.startsWith(': keep-alive\n\n')).toBe(true);
    for (const result of [viaExpress, viaFastify, viaExpressSlowStart, viaFastifySlowStart]) {
      expect(result.broken).toBe(false);
      expect(result.body.split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(9);
      expect(result.body).toContain('"content":" done."');
      expect(result.body.endsWith('data: [DONE]\n\n')).toBe(true);
    }
    expect(express.dropped + fastify.dropped + expressSlowStart.dropped + fastifySlowStart.dropped).toBe(0);
    expect(silent.dropped).toBe(1);
    expect(withoutKeepAlive.body).not.toContain('data: [DONE]');
  }, 40_000);
});
