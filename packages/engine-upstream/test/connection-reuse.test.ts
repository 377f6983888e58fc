import type { ChatEngineRequest } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine } from '../src/index.js';
import { contentChunk, sseHeaders, startUpstreamServer, type UpstreamScenario, type UpstreamServer } from './helpers/start-upstream-server.js';

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [{ role: 'user', content: 'Count.' }],
  tools: [],
  toolChoice: 'none',
  parallelToolCalls: false,
  temperature: 1,
  maxTokens: 256,
  reasoning: false,
};

const usage = { prompt_tokens: 3, completion_tokens: 20, total_tokens: 23 };

/**
 * A 20-chunk stream written as runtimes write it: a write per chunk, `[DONE]`, then the end of
 * the body in its own write (so the reader may see `[DONE]` before the body's last chunk).
 */
const twentyChunks: UpstreamScenario = async (_request, response) => {
  response.writeHead(200, sseHeaders);
  for (let index = 0; index < 20; index++) {
    response.write(contentChunk(`w${index} `));
    await new Promise(setImmediate);
  }
  response.write(contentChunk('', 'stop'));
  response.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
  response.write('data: [DONE]\n\n');
  await new Promise(setImmediate);
  response.end();
};

/** The same answer as one JSON chat completion. */
const wholeAnswer: UpstreamScenario = (_request, response) => {
  const text = Array.from({ length: 20 }, (_, index) => `w${index} `).join('');
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage }));
};

const servers: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * `concurrency` clients, each sending its requests one after another (a steady load, as a load
 * generator makes it), for `rounds` requests each; the connections the upstream accepted after
 * each round.
 */
async function connectionsPerRound(scenario: UpstreamScenario, concurrency: number, rounds: number): Promise<number[]> {
  const server = await startUpstreamServer(scenario);
  servers.push(server);
  const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'up' });
  const accepted: number[] = [];
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      Array.from({ length: concurrency }, async (_, client) => {
        let text = '';
        for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: `req_${round}_${client}` })) {
          if (event.type === 'content') text += event.text;
        }
        expect(text).toContain('w19');
      }),
    );
    accepted.push(server.connectionsAccepted());
  }
  return accepted;
}

describe('upstream connections under steady load', () => {
  it('should reuse its connections for streamed answers: none opened after the first round', async () => {
    const accepted = await connectionsPerRound(twentyChunks, 32, 6);
    // The first round opens at most one connection per concurrent request; later rounds reuse them.
    expect(accepted[0]).toBeLessThanOrEqual(32);
    expect(accepted.at(-1)).toBe(accepted[0]);
  });

  it('should reuse its connections when each client sends its next request as soon as its answer ends', async () => {
    const server = await startUpstreamServer(twentyChunks);
    servers.push(server);
    const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'up' });
    const concurrency = 32;
    const perClient = 8;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, client) => {
        for (let sent = 0; sent < perClient; sent++) {
          for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: `req_${client}_${sent}` })) void event;
        }
      }),
    );
    expect(server.requests).toHaveLength(concurrency * perClient);
    // A completed answer hands its connection back before the next request needs one.
    expect(server.connectionsAccepted()).toBeLessThanOrEqual(concurrency);
  });

  it('should reuse its connections for JSON answers', async () => {
    const accepted = await connectionsPerRound(wholeAnswer, 32, 6);
    expect(accepted[0]).toBeLessThanOrEqual(32);
    expect(accepted.at(-1)).toBe(accepted[0]);
  });
});
