import { insecureAcceptAnyApiKey } from '@quantum-chat/core';
/**
 * The fuzz suite. fast-check generates requests, mostly malformed and
 * adversarial, and sends the same bytes to an Express and a Fastify host over real HTTP.
 *
 * FUZZ_RUNS (default 10,000) sets the number of cases and FUZZ_SEED replays a run; the seed
 * is printed at the start. `pnpm fuzz` at the root runs 100,000.
 */
import { Agent } from 'node:http';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer, type AnswerSummary } from '../src/check-answers.js';
import { fuzzRequest, type FuzzRequest } from '../src/fuzz-request.js';
import { sendRaw } from '../src/send-raw.js';
import { startExpressHost, startFastifyHost, type Host } from '../src/start-hosts.js';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);

const unhandled: unknown[] = [];
const serverErrors: unknown[] = [];
const recordUnhandled = (reason: unknown) => unhandled.push(reason);
const hosts: Host[] = [];
const agents = new Map<Host, Agent>();

beforeAll(async () => {
  process.on('unhandledRejection', recordUnhandled);
  process.on('uncaughtException', recordUnhandled);
  const engine = createReferenceEngine();
  // Reporting only: a 5xx fails the property, and its cause is shown with it.
  const onError = (error: unknown) => serverErrors.push(error);
  hosts.push(await startExpressHost({ accessControl: insecureAcceptAnyApiKey(), engine, onError }), await startFastifyHost({ accessControl: insecureAcceptAnyApiKey(), engine, onError }));
  for (const host of hosts) agents.set(host, new Agent({ keepAlive: true, maxSockets: 8 }));
});

afterAll(async () => {
  process.off('unhandledRejection', recordUnhandled);
  process.off('uncaughtException', recordUnhandled);
  for (const agent of agents.values()) agent.destroy();
  for (const host of hosts) await host.close();
});

/** Sends the same bytes to both hosts; a refused connection is retried once on a fresh socket. */
async function exchange(request: FuzzRequest) {
  return Promise.all(
    hosts.map(async (host) => {
      const input = { method: request.method, path: request.path, headers: request.headers, body: request.body };
      try {
        return await sendRaw(host.port, agents.get(host), input);
      } catch (error) {
        // A keep-alive socket the server closed after an error answer (Connection: close).
        if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
        return sendRaw(host.port, undefined, input);
      }
    }),
  );
}

describe('fuzz: Express and Fastify answer the same bytes the same way', () => {
  it(`should survive ${runs} generated requests: no 5xx, valid envelopes and answers, identical verdicts`, async () => {
    console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} pnpm fuzz)`);
    const started = performance.now();
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        serverErrors.length = 0;
        const [fromExpress, fromFastify] = await exchange(request);
        let expressSummary: AnswerSummary;
        let fastifySummary: AnswerSummary;
        try {
          expressSummary = checkAnswer('express', request.method, fromExpress!);
          fastifySummary = checkAnswer('fastify', request.method, fromFastify!);
        } catch (error) {
          const causes = serverErrors.map((cause) => (cause instanceof Error ? cause.stack : String(cause))).join('\n');
          throw new Error(`${(error as Error).message}${causes ? `\nserver errors:\n${causes}` : ''}`);
        }
        expect(fastifySummary, request.recipe).toEqual(expressSummary);
        const key = `${expressSummary.status}${expressSummary.code ? ` ${expressSummary.code}` : ''}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }),
      { numRuns: runs, seed, verbose: 1 },
    );
    const seconds = (performance.now() - started) / 1000;
    const spread = [...statuses.entries()].sort((a, b) => b[1] - a[1]).map(([key, count]) => `${key}: ${count}`);
    console.log(`fuzz: ${runs} cases in ${seconds.toFixed(1)} s (${(runs / seconds).toFixed(0)}/s); answers: ${spread.join(', ')}`);
    expect(unhandled).toEqual([]);
  }, 900_000);
});
