/**
 * No event-loop stall from pathological input.
 *
 * Regression tests for `@quantum-chat/engine-reference` (not the core or the adapters): valid
 * requests whose answer the reference engine used to compute in seconds of synchronous work,
 * stalling every other request of the process (about a second each at these sizes, minutes at
 * larger ones: a 1 MiB run of emoji, four required self-references). Fixed in the engine:
 * generated tool arguments have a budget (values, string length, nesting through `$ref`), and a
 * tool whose schema does not fit it is not called (the engine says so in text); long runs
 * without a break are tokenized in pieces of at most 256 code units.
 */
import { insecureAcceptAnyApiKey, createChatHandler, generateApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { describe, expect, it } from 'vitest';
import { startStallMonitor, type Stall } from '../src/stall-monitor.js';

const key = generateApiKey('test');
const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine() });
const tool = (parameters: unknown) => [{ type: 'function', function: { name: 'lookup', parameters } }];

async function maxStallOf(fields: Record<string, unknown>): Promise<Stall> {
  const monitor = startStallMonitor();
  const response = await handler.fetch(
    new Request('http://127.0.0.1/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Look it up, please.' }], ...fields }),
    }),
  );
  await response.text();
  const stall = await monitor.stop();
  expect(response.status).toBe(200);
  console.info(`longest stall: ${stall.cpuMs.toFixed(0)} ms of CPU, ${stall.elapsedMs.toFixed(0)} ms elapsed`);
  return stall;
}

describe('engine-reference stalls', () => {
  it('should not stall on a schema that requires itself twice through $ref (2^16 generated objects)', async () => {
    // Nullable, so it has a finite value (one without is refused before the engine, 400).
    const node = { type: ['object', 'null'], properties: { left: { $ref: '#/$defs/node' }, right: { $ref: '#/$defs/node' } }, required: ['left', 'right'] };
    const parameters = { type: 'object', $defs: { node }, properties: { tree: { $ref: '#/$defs/node' } }, required: ['tree'] };
    expect((await maxStallOf({ tools: tool(parameters), tool_choice: 'required' })).cpuMs).toBeLessThan(250);
  });

  it('should not stall on nested arrays with minItems 64 (262,144 generated strings)', async () => {
    const items = (inner: unknown) => ({ type: 'array', minItems: 64, items: inner });
    const parameters = { type: 'object', properties: { grid: items(items(items({ type: 'string' }))) }, required: ['grid'] };
    expect((await maxStallOf({ tools: tool(parameters), tool_choice: 'required' })).cpuMs).toBeLessThan(250);
  });

  it('should not stall on a long minLength string (tokenized as one 20,000-character word)', async () => {
    const parameters = { type: 'object', properties: { code: { type: 'string', minLength: 20_000 } }, required: ['code'] };
    expect((await maxStallOf({ tools: tool(parameters), tool_choice: 'required' })).cpuMs).toBeLessThan(250);
  });

  it('should not stall on a run of 8,000 emoji in a message (quadratic prompt token count)', async () => {
    expect((await maxStallOf({ messages: [{ role: 'user', content: '😀'.repeat(8000) }] })).cpuMs).toBeLessThan(250);
  });
});
