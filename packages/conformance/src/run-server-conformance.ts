import type { ChatHandlerOptions } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createCaseHandlerOptions } from './case-handler-options.js';
import { fillPlaceholders, keyOrder } from './compare-json-body.js';
import { loadCases, type CaseStep, type ConformanceCase } from './load-cases.js';
import { readBodyIncrementally } from './read-body-incrementally.js';
import { createReplayEngine } from './replay-engine.js';
import { assertResponseStream } from './responses/compare-response-stream.js';
import { sendCaseRequest, type ConformanceFetch, type SavedValues } from './send-case-request.js';

/** A running host under test. */
export interface ConformanceHost {
  /** Where the handler is mounted, e.g. `http://127.0.0.1:PORT/v1`; case paths are appended to it. */
  baseUrl: string;
  close(): Promise<void>;
  /**
   * How to reach the host, when not over the network: an in-process face such as
   * `handler.fetch`. Global `fetch` is used when absent.
   */
  fetch?: ConformanceFetch;
  /**
   * For a host whose engine runs elsewhere (another process or JavaScript runtime, built from
   * the case there): how the runner reaches that replay engine. Without it the runner uses
   * the engine it put in the handler options.
   */
  remoteEngine?: RemoteReplayEngine;
}

/** A replay engine in another process, as the runner needs it. */
export interface RemoteReplayEngine {
  /** The reader saw the first bytes of the response (fire and forget). */
  markFirstFrame(): void;
  /** How often the engine was called, and whether the first frame came before its last event. */
  state(): Promise<{ calls: number; firstFrameBeforeLastEvent: boolean | undefined }>;
}

/**
 * Starts a host around a handler built from these options (one host per case). The case is
 * passed too, for hosts that build their handler elsewhere (see `remoteEngine`).
 */
export type StartConformanceHost = (handlerOptions: ChatHandlerOptions, testCase: ConformanceCase) => Promise<ConformanceHost>;

export interface ServerConformanceOptions {
  /** Case ids expected to fail: they run as `it.fails`, so they turn red once fixed. */
  knownFailures?: string[];
  /** The cases to run; all shipped fixtures by default. */
  cases?: ConformanceCase[];
  /**
   * How long the replay engine holds a stream's last event waiting for the first frame to
   * reach the client; 2000 ms by default. A buffering host fails after this wait.
   */
  streamProofTimeoutMs?: number;
}

const textDecoder = new TextDecoder();

function describeBody(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

function assertJsonBody(testCase: ConformanceCase & { response: { kind: 'json' } }, text: string): void {
  let actual: unknown;
  try {
    actual = JSON.parse(text);
  } catch {
    expect.fail(`expected a JSON body, got: ${describeBody(text)}`);
  }
  const expected = fillPlaceholders(testCase.response.value, actual);
  expect(actual, 'JSON body').toEqual(expected);
  expect(keyOrder(actual), 'JSON key order').toEqual(keyOrder(expected));
}

/** The value at a dotted path (`id`, `output.0.call_id`) of a JSON value, if it is a string or a number. */
function valueAt(value: unknown, path: string): string | undefined {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' || typeof current === 'number' ? String(current) : undefined;
}

/** Sends one `before` step and checks its status and headers; saves what it asks to. */
async function runStep(step: CaseStep, index: number, host: ConformanceHost, saved: Map<string, string>): Promise<void> {
  const response = await sendCaseRequest(step.request, host.baseUrl, host.fetch ?? globalThis.fetch, { saved });
  const text = await response.text();
  const where = `before[${index}] ${step.request.method} ${step.request.path}`;
  expect(response.status, `${where}: status (body: ${describeBody(text)})`).toBe(step.expect.status);
  for (const [name, value] of Object.entries(step.expect.headers)) expect(response.headers.get(name), `${where}: header ${name}`).toBe(value);
  if (Object.keys(step.save).length === 0) return;
  // A stream's values are read from its last event (a Responses stream's final response).
  const source = response.headers.get('content-type')?.startsWith('text/event-stream') ? (/^data: (.*)$/m.exec(text.trimEnd().split('\n\n').at(-1) ?? '')?.[1] ?? '') : text;
  let body: unknown;
  try {
    body = JSON.parse(source);
  } catch {
    expect.fail(`${where}: expected a JSON body (or a stream whose last event is JSON) to save from, got: ${describeBody(text)}`);
  }
  for (const [name, path] of Object.entries(step.save)) {
    const value = valueAt(body, path);
    expect(value, `${where}: a value at ${path} to save as {{${name}}}`).toBeDefined();
    saved.set(name, value!);
  }
}

async function runCase(testCase: ConformanceCase, startHost: StartConformanceHost, holdTimeoutMs: number | undefined): Promise<void> {
  const streaming = testCase.response.kind === 'sse';
  const engine = createReplayEngine(testCase.engineEvents, { holdLastEvent: streaming, ...(holdTimeoutMs !== undefined ? { holdTimeoutMs } : {}) });
  const host = await startHost(createCaseHandlerOptions(testCase, engine), testCase);
  const probe = host.remoteEngine;
  try {
    const saved = new Map<string, string>();
    for (const [index, step] of testCase.before.entries()) await runStep(step, index, host, saved);
    const response = await sendCaseRequest(testCase.request, host.baseUrl, host.fetch ?? globalThis.fetch, { saved: saved as SavedValues });
    const bytes = await readBodyIncrementally(response, () => (probe ?? engine).markFirstFrame());
    const state = probe !== undefined ? await probe.state() : { calls: engine.requests.length, firstFrameBeforeLastEvent: engine.firstFrameBeforeLastEvent };
    const text = textDecoder.decode(bytes);
    expect(response.status, `status (body: ${describeBody(text)})`).toBe(testCase.expect.status);
    for (const [name, value] of Object.entries(testCase.expect.headers)) {
      expect(response.headers.get(name), `header ${name}`).toBe(value);
    }
    if (testCase.response.kind === 'json') {
      assertJsonBody({ ...testCase, response: testCase.response }, text);
    } else {
      const expectedBytes = testCase.response.bytes;
      // A Responses stream is held to decisions §10 first, then compared event by event: both
      // say more about a fault than the byte comparison that follows.
      if (testCase.api === 'responses') assertResponseStream(text, textDecoder.decode(expectedBytes));
      expect(text, 'SSE body').toBe(textDecoder.decode(expectedBytes));
      expect(Buffer.from(bytes).equals(Buffer.from(expectedBytes)), 'SSE body, byte for byte').toBe(true);
      expect(state.firstFrameBeforeLastEvent, 'the first frame arrived before the engine yielded its last event').toBe(true);
    }
    if (testCase.engineEvents === undefined) expect(state.calls, 'engine calls (this case must not reach the engine)').toBe(0);
  } finally {
    await host.close();
  }
}

/**
 * Registers one vitest test per conformance case, named `<case id> [<hostName>]`. Each test
 * starts the host with that case's handler options (a replay engine, sequential ids, a fixed
 * clock, the conformance keys), sends the stored request, and checks status, the listed
 * headers and the body: JSON deeply (key order included), SSE byte for byte, read
 * incrementally, with proof that the first frame came before the engine's last event.
 *
 * @example
 * runServerConformance('express', async (handlerOptions) => {
 *   const app = express();
 *   app.use('/v1', createExpressRouter(handlerOptions));
 *   const server = app.listen(0, '127.0.0.1');
 *   await once(server, 'listening');
 *   return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => closeServer(server) };
 * }, { knownFailures: [] });
 */
export function runServerConformance(hostName: string, startHost: StartConformanceHost, options: ServerConformanceOptions = {}): void {
  const cases = options.cases ?? loadCases();
  const knownFailures = new Set(options.knownFailures ?? []);
  const unknown = [...knownFailures].filter((id) => !cases.some((testCase) => testCase.id === id));
  if (unknown.length > 0) throw new Error(`runServerConformance: unknown case ids in knownFailures: ${unknown.join(', ')}`);
  describe(`server conformance [${hostName}]`, () => {
    for (const testCase of cases) {
      const register = knownFailures.has(testCase.id) ? it.fails : it;
      register(`${testCase.id} [${hostName}]`, () => runCase(testCase, startHost, options.streamProofTimeoutMs));
    }
  });
}
