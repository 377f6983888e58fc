import { Agent, request } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { eventLoopProbeEnv, readEventLoopProbe } from './event-loop-probe.js';
import { startServerProcess } from './server-process.js';

/** A pattern that backtracks for hours over 4,000 letters, and a schema that makes the engine produce them. */
const freezingTool = {
  type: 'function',
  function: {
    name: 'freeze',
    description: 'Checks a code',
    parameters: { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]*[a-z]*[a-z]*[a-z]*!$', minLength: 4000 } }, required: ['code'] },
  },
};

/** Definitions that double through allOf: a million subschemas in 30 lines. */
function doublingTool() {
  const definitions: Record<string, unknown> = { d0: { type: 'string' } };
  for (let level = 1; level <= 24; level++) definitions[`d${level}`] = { allOf: [{ $ref: `#/definitions/d${level - 1}` }, { $ref: `#/definitions/d${level - 1}` }] };
  return { type: 'function', function: { name: 'double', parameters: { type: 'object', definitions, properties: { a: { $ref: '#/definitions/d24' } }, required: ['a'] } } };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One `GET /healthz`: its latency in milliseconds. */
function probe(origin: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/healthz`, { agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('timeout', () => req.destroy(new Error('healthz timed out')));
    req.on('error', reject);
    req.end();
  });
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

describe('quantum-chat serve under requests built to freeze it', () => {
  it('should keep answering /healthz (its event loop never held 100 ms) while it serves a catastrophic pattern and doubling $refs, and still stop on SIGTERM', async () => {
    const server = await startServerProcess({ shutdownGraceMs: 1_000 }, eventLoopProbeEnv());
    onTestFinished(() => server.dispose());
    const key = server.firstStartKey!;
    const chat = (tool: unknown) =>
      fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Check this code please' }], tools: [tool], tool_choice: 'required' }),
        // On a frozen server this fails the test instead of hanging it.
        signal: AbortSignal.timeout(20_000),
      });

    // Warm-up: the tokenizer's tables and the code paths of a tool call, so that what is measured is the freezing requests.
    const harmless = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$', minLength: 2000 } }, required: ['id'] } } };
    for (let warm = 0; warm < 5; warm++) expect((await chat(harmless)).status).toBe(200);
    // The first freezing request runs code paths for the first time (JIT); its stall is printed, not bounded.
    const coldProbe = probe(server.origin);
    expect((await chat(freezingTool)).status).toBe(200);
    console.log(`healthz during the first freezing request: ${(await coldProbe).toFixed(1)} ms`);
    const idle: number[] = [];
    for (let warm = 0; warm < 60; warm++) {
      idle.push(await probe(server.origin));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    console.log(`healthz idle: p99 ${p99(idle).toFixed(1)} ms`);
    await readEventLoopProbe(server);
    const latencies: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        latencies.push(await probe(server.origin));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    const [freezing, doubling] = await Promise.all([chat(freezingTool), chat(doublingTool())]);
    // Forty more, one after the other, from the same free test key.
    const answers: number[] = [];
    for (let count = 0; count < 40; count++) answers.push((await chat(freezingTool)).status);
    await new Promise((resolve) => setTimeout(resolve, 300));
    probing = false;
    await prober;
    const held = await readEventLoopProbe(server);

    expect(freezing.status).toBe(200);
    const completion = (await freezing.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string; arguments: string } }> } }> };
    expect(completion.choices[0]!.message.tool_calls[0]!.function.name).toBe('freeze');
    expect(answers).toEqual(Array(40).fill(200));
    expect(doubling.status).toBe(400);
    expect(((await doubling.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_tool_schema', param: 'tools[0].function.parameters' });
    console.log(
      `healthz during the freezing requests: ${latencies.length} probes, p99 ${p99(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; ` +
        `the server's event loop held at most ${held.cpuMs.toFixed(1)} ms of work (${held.elapsedMs.toFixed(1)} ms elapsed, ${held.waitMs.toFixed(1)} ms of it waiting for a core)`,
    );
    // Probes kept being answered while the attack ran (how many depends on how busy the machine is)...
    expect(latencies.length).toBeGreaterThanOrEqual(10);
    // ...and no stretch of work held the server's event loop for 100 ms, so none of them could
    // have waited that long on the server. Counted in the server's CPU time: on a busy machine
    // the probes' own latencies also measure how long the processes waited for a core.
    expect(held.cpuMs).toBeLessThan(100);

    agent.destroy();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);
});
