/** Patterns from requests never stall the event loop; distinct tool schemas never grow memory. */
import { Agent } from 'node:http';
import { createChatHandler, generateApiKey, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureMemory } from '../src/force-gc.js';
import { redosCorpus, type RedosCase } from '../src/redos-corpus.js';
import { sendRaw } from '../src/send-raw.js';
import { startStallMonitor } from '../src/stall-monitor.js';
import { startExpressHost, startFastifyHost, type Host } from '../src/start-hosts.js';

const key = generateApiKey('test');
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let hosts: Host[] = [];

beforeAll(async () => {
  const engine = createReferenceEngine();
  hosts = [await startExpressHost({ engine, accessControl: insecureAcceptAnyApiKey() }), await startFastifyHost({ engine, accessControl: insecureAcceptAnyApiKey() })];
});
afterAll(async () => {
  agent.destroy();
  for (const host of hosts) await host.close();
});

/** Where a request can carry a pattern, each with the attack string where the engine or validator meets it. */
function placements(input: RedosCase): Array<[string, Record<string, unknown>]> {
  return [
    ['pattern with minLength', { type: 'object', properties: { code: { type: 'string', pattern: input.pattern, minLength: input.attack.length } }, required: ['code'] }],
    ['pattern with the attack as default', { type: 'object', properties: { code: { type: 'string', pattern: input.pattern, default: input.attack, examples: [input.attack, input.attack] } }, required: ['code'] }],
    ['patternProperties key', { type: 'object', patternProperties: { [input.pattern]: { type: 'string' } }, properties: { [input.attack.slice(0, 200)]: { type: 'string' } }, required: [input.attack.slice(0, 200)] }],
    ['propertyNames', { type: 'object', propertyNames: { pattern: input.pattern }, properties: { [input.attack.slice(0, 200)]: { type: 'string' } }, required: [input.attack.slice(0, 200)] }],
  ];
}

describe('the ReDoS corpus', () => {
  it.each(redosCorpus.map((input) => [input.name, input] as const))('%s: answered or refused without stalling the event loop', async (_name, input) => {
    const figures: string[] = [];
    for (const host of hosts) {
      for (const [where, parameters] of placements(input)) {
        const body = JSON.stringify({
          model: 'quantum-lite',
          messages: [{ role: 'user', content: `Check ${input.attack.slice(0, 2000)}` }],
          tools: [{ type: 'function', function: { name: 'check', parameters } }],
          tool_choice: 'required',
        });
        const monitor = startStallMonitor();
        const response = await sendRaw(host.port, agent, {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: new TextEncoder().encode(body),
        });
        const stall = await monitor.stop();
        figures.push(`${host.name} ${where}: ${response.status}, longest stall ${stall.cpuMs.toFixed(0)} ms of CPU (${stall.elapsedMs.toFixed(0)} ms elapsed)`);
        if (input.linear) {
          expect(response.status, `${host.name} ${where}: ${response.body.slice(0, 300)}`).toBe(200);
        } else {
          expect(response.status, `${host.name} ${where}`).toBe(400);
          expect(errorEnvelopeSchema.parse(JSON.parse(response.body)).error).toMatchObject({ code: 'invalid_tool_schema', param: 'tools[0].function.parameters' });
        }
        // Work proportional to the request, never to the pattern's backtracking (CPU time: what
        // held the event loop, not how long a busy machine kept the process waiting).
        expect(stall.cpuMs, `${host.name} ${where}`).toBeLessThan(400);
      }
    }
    console.log(`${input.name}: ${figures.join('; ')}`);
  });
});

describe('distinct tool schemas', () => {
  it('should keep the heap flat over 20,000 requests that each carry a schema never seen before', async () => {
    const handler = createChatHandler({ engine: createReferenceEngine({ tokensPerSecond: 0 }), accessControl: insecureAcceptAnyApiKey() });
    const send = async (index: number) => {
      const parameters = {
        type: 'object',
        properties: {
          [`field${index}`]: { type: 'string', pattern: `^[a-z]{1,${(index % 50) + 1}}x${index}$`, description: `distinct ${index}` },
          count: { type: 'integer', minimum: index % 7, $comment: String(index) },
        },
        required: [`field${index}`],
      };
      const response = await handler.fetch(
        new Request('http://localhost/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Fill it in' }], tools: [{ type: 'function', function: { name: `tool_${index}`, parameters } }], tool_choice: 'required', max_tokens: 16 }),
        }),
      );
      const text = await response.text();
      expect(response.status, text).toBe(200);
    };
    for (let index = 0; index < 1_000; index++) await send(1_000_000 + index); // warm caches to their bound
    const before = measureMemory();
    for (let index = 0; index < 20_000; index++) await send(index);
    const after = measureMemory();
    const growth = (after.heapUsed - before.heapUsed) / 1024 / 1024;
    console.log(`20,000 distinct schemas: heap ${(before.heapUsed / 1048576).toFixed(1)} → ${(after.heapUsed / 1048576).toFixed(1)} MB (${growth.toFixed(1)} MB), rss ${(before.rss / 1048576).toFixed(0)} → ${(after.rss / 1048576).toFixed(0)} MB`);
    expect(growth).toBeLessThan(20);
  }, 300_000);
});
