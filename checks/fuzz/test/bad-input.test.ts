/** Bad input of every kind gets the envelope of decisions §2 and §5 with the right `param`, the same from Express and Fastify. */
import { once } from 'node:events';
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { insecureAcceptAnyApiKey, findToolSchemaProblem, generateApiKey, validateChatRequest } from '@quantum-chat/core';
import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badInputCases, deeplyNested, type BadInputCase } from '../src/bad-input-cases.js';
import { sendRaw, type RawResponse } from '../src/send-raw.js';
import { startStallMonitor } from '../src/stall-monitor.js';
import { startExpressHost, startFastifyHost, type Host } from '../src/start-hosts.js';

const key = generateApiKey('test');
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let express: Host;
let fastify: Host;
let expressWithGlobalJson: Host;

beforeAll(async () => {
  const engine = createReferenceEngine();
  express = await startExpressHost({ accessControl: insecureAcceptAnyApiKey(), engine });
  fastify = await startFastifyHost({ accessControl: insecureAcceptAnyApiKey(), engine });
  expressWithGlobalJson = await startExpressHost({ accessControl: insecureAcceptAnyApiKey(), engine }, { globalJson: true });
});
afterAll(async () => {
  agent.destroy();
  for (const host of [express, fastify, expressWithGlobalJson]) await host?.close();
});

function send(host: Host, input: BadInputCase): Promise<RawResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...input.headers };
  // An empty string in a case means "leave the header out".
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  const body = typeof input.body === 'string' ? new TextEncoder().encode(input.body) : input.body;
  return sendRaw(host.port, agent, { method: 'POST', path: '/v1/chat/completions', headers, body });
}

/** Status and envelope fields; the body must be a valid envelope whenever the status is not 2xx. */
function summarize(response: RawResponse) {
  if (response.status < 300) return { status: response.status, ignored: response.headers['x-quantum-ignored-params'] };
  const envelope = errorEnvelopeSchema.parse(JSON.parse(response.body));
  expect(envelope.error.code).toBeTypeOf('string');
  expect(response.body).not.toMatch(/\bat .+:\d+:\d+/u); // never a stack trace
  return { status: response.status, type: envelope.error.type, code: envelope.error.code, param: envelope.error.param };
}

describe('bad input over HTTP', () => {
  it.each(badInputCases.map((input) => [input.name, input] as const))('%s: the right envelope, the same from Express and Fastify', async (_name, input) => {
    const [fromExpress, fromFastify] = await Promise.all([send(express, input), send(fastify, input)]);
    const summary = summarize(fromExpress);
    expect(summary).toMatchObject(input.expect);
    expect(summarize(fromFastify)).toEqual(summary);
    expect(fromExpress.headers['x-request-id']).toBeTypeOf('string');
    expect(fromFastify.headers['x-request-id']).toBeTypeOf('string');
  });

  it('should refuse a 20 KB body nested 10,000 levels behind a global express.json() too', async () => {
    const body = deeplyNested(10_000);
    expect(body.length).toBeGreaterThan(20_000);
    for (const host of [express, fastify, expressWithGlobalJson]) {
      const response = await send(host, { name: 'deep', body, expect: { status: 400 } });
      expect(summarize(response)).toEqual({ status: 400, type: 'invalid_request_error', code: 'nesting_too_deep', param: null });
    }
    const objects = await send(expressWithGlobalJson, { name: 'deep objects', body: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, expect: { status: 400 } });
    expect(summarize(objects).code).toBe('nesting_too_deep');
  });
});

describe('pathological tool schemas', () => {
  const tool = (name: string, parameters: unknown) => ({ type: 'function', function: { name, parameters } });
  const chat = (tools: unknown[], toolChoice: unknown = 'auto') =>
    JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Please look this up for me' }], tools, tool_choice: toolChoice });
  const widest = { type: 'object', properties: Object.fromEntries(Array.from({ length: 3300 }, (_, index) => [`p${index}`, { type: 'string', pattern: '^[a-z]{1,8}(-[a-z]{1,8})?$' }])) };
  let deepest: Record<string, unknown> = { type: 'string', pattern: '^(\\d{1,3}\\.){3}\\d{1,3}$' };
  for (let level = 0; level < 28; level++) deepest = { type: 'object', properties: { child: deepest, sibling: { $ref: '#' } } };

  it('should check the worst schemas without fetching anything and without stalling the event loop', async () => {
    // A would-be $ref target: it must never be asked for anything.
    let fetched = 0;
    const target = createServer((_request, response) => {
      fetched++;
      response.end('{}');
    });
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/schema.json`;
    const worst: Array<[string, string, number]> = [
      ['the widest allowed schema (3,300 patterned properties)', chat([tool('wide', widest)]), 200],
      ['28 levels deep with a $ref to the root at each', chat([tool('deep', deepest)]), 200],
      ['an enum of 490 objects (a quadratic duplicate check)', chat([tool('enum', { type: 'object', properties: { a: { enum: Array.from({ length: 490 }, (_, index) => ({ index })) } } })]), 200],
      ['128 tools, each with 950 enum strings', chat(Array.from({ length: 128 }, (_, index) => tool(`t${index}`, { type: 'object', properties: { a: { enum: Array.from({ length: 950 }, (_, value) => `v${value}`) } } }))), 400],
      ['128 tools, each with 200 properties', chat(Array.from({ length: 128 }, (_, index) => tool(`t${index}`, { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, name) => [`p${name}`, { type: 'integer' }])) }))), 400],
      ['a remote $ref to a live server', chat([tool('remote', { type: 'object', properties: { a: { $ref: targetUrl } } })]), 400],
      ['a remote $id with a local $ref', chat([tool('based', { $id: targetUrl, type: 'object', properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: { type: 'string' } } })]), 200],
      ['a $ref cycle', chat([tool('cycle', { type: 'object', properties: { a: { $ref: '#/definitions/a' } }, definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } } })]), 200],
      ['(a+)+$ against a long run of a (linear-time engine)', chat([tool('redos', { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$', default: 'a'.repeat(40) + '!' } } })], 'required'), 200],
      ['a backreference (refused)', chat([tool('backref', { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)\\1$' } } })], 'required'), 400],
    ];
    const figures: string[] = [];
    try {
      for (const host of [express, fastify]) {
        for (const [name, body, status] of worst) {
          const monitor = startStallMonitor();
          const started = performance.now();
          const response = await send(host, { name, body, expect: { status } });
          const elapsed = performance.now() - started;
          const stall = await monitor.stop();
          expect(summarize(response).status, `${host.name}: ${name}: ${response.body.slice(0, 200)}`).toBe(status);
          if (status === 400) expect(summarize(response)).toMatchObject({ code: 'invalid_tool_schema' });
          figures.push(`${host.name.padEnd(8)} ${name.padEnd(56)} ${String(body.length).padStart(7)} B  ${elapsed.toFixed(0).padStart(4)} ms  longest event-loop stall ${stall.cpuMs.toFixed(0)} ms of CPU (${stall.elapsedMs.toFixed(0)} ms elapsed)`);
          // The whole request, engine included, holds the event loop for well under a second of
          // work (CPU time: a busy machine that keeps the process waiting does not count).
          expect(stall.cpuMs, `${host.name}: ${name}`).toBeLessThan(400);
        }
      }
    } finally {
      console.log(figures.join('\n'));
      target.close();
    }
    expect(fetched).toBe(0);
  }, 60_000);

  it('should keep the check itself of the worst schemas in tens of milliseconds', () => {
    findToolSchemaProblem({ type: 'object' }); // the meta-schema validator is made once per process
    const timings: string[] = [];
    for (const [name, run] of [
      ['the widest allowed schema', () => findToolSchemaProblem(widest)],
      ['the deepest schema', () => findToolSchemaProblem(deepest)],
      ['128 tools of 950 enum strings', () => expect(() => validateChatRequest(JSON.parse(chat(Array.from({ length: 128 }, (_, index) => tool(`t${index}`, { type: 'object', properties: { a: { enum: Array.from({ length: 950 }, (_, value) => `v${value}`) } } })))))).toThrow(/2000 enum values/u)],
    ] as const) {
      run(); // once untimed: the figure is the steady cost, not the JIT's first pass
      // CPU time, the work itself: a busy machine that keeps the process waiting does not count.
      const started = process.cpuUsage();
      run();
      const used = process.cpuUsage(started);
      const cpuMs = (used.user + used.system) / 1000;
      timings.push(`${name}: ${cpuMs.toFixed(1)} ms of CPU`);
      expect(cpuMs, name).toBeLessThan(150);
    }
    console.log(`tool schema check: ${timings.join('; ')}`);
  });
});
