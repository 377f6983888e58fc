import { createChatHandler } from '@quantum-chat/core';
import { loadCases, runServerConformance, type ConformanceCase, type StartConformanceHost } from '../src/index.js';

// The runner must turn red on a broken host: every case here is registered as a known
// failure, so `it.fails` passes only if the runner really reports the fault.

const cases = loadCases();
const byId = (id: string) => cases.find((testCase) => testCase.id === id)!;

const fetchFace: StartConformanceHost = async (options) => {
  const handler = createChatHandler(options);
  return { baseUrl: 'http://conformance.invalid/v1', fetch: (url, init) => handler.fetch(new Request(url, init)), close: async () => {} };
};

/** Reads the whole stream before answering: correct bytes, but nothing streams. */
const bufferingHost: StartConformanceHost = async (options) => {
  const handler = createChatHandler(options);
  return {
    baseUrl: 'http://conformance.invalid/v1',
    fetch: async (url, init) => {
      const response = await handler.fetch(new Request(url, init));
      return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
    },
    close: async () => {},
  };
};

const streamCases = cases.filter((testCase) => testCase.response.kind === 'sse');
runServerConformance('buffering host (must fail)', bufferingHost, {
  cases: streamCases,
  knownFailures: streamCases.map((testCase) => testCase.id),
  streamProofTimeoutMs: 100,
});

/** Copies of real cases with one expectation broken each. */
function broken(id: string, edit: (testCase: ConformanceCase) => ConformanceCase): ConformanceCase {
  return { ...edit(byId(id)), id: `${id}-broken` };
}
const textStream = byId('chat/text-stream');
const sseBytes = textStream.response.kind === 'sse' ? textStream.response.bytes : new Uint8Array();
const withByteFlipped = Uint8Array.from(sseBytes, (byte, index) => (index === sseBytes.length - 20 ? byte ^ 1 : byte));
const reasonerJson = byId('chat/reasoner-json').response as { kind: 'json'; value: { choices: [{ message: Record<string, unknown> }] } };
const { reasoning_content: reasoning, ...messageRest } = reasonerJson.value.choices[0].message;

const responsesStream = byId('responses/text-stream');
const responsesBytes = responsesStream.response.kind === 'sse' ? responsesStream.response.bytes : new Uint8Array();
const withOtherGreeting = new TextEncoder().encode(new TextDecoder().decode(responsesBytes).replaceAll('Bonjour', 'Bonsoir'));
const reasonerResponse = byId('responses/reasoner-json').response as { kind: 'json'; value: { output: unknown[] } };

const brokenCases = [
  broken('responses/text-stream', (testCase) => ({ ...testCase, response: { kind: 'sse', bytes: withOtherGreeting } })),
  broken('responses/reasoner-json', (testCase) => ({ ...testCase, response: { kind: 'json', value: { ...reasonerResponse.value, output: [...reasonerResponse.value.output].reverse() } } })),
  broken('responses/retrieve-stored', (testCase) => ({ ...testCase, before: [{ ...testCase.before[0]!, save: { id: 'output.0.id' } }] })),
  broken('chat/text-stream', (testCase) => ({ ...testCase, response: { kind: 'sse', bytes: withByteFlipped } })),
  broken('chat/text-json', (testCase) => ({ ...testCase, expect: { ...testCase.expect, headers: { ...testCase.expect.headers, 'x-request-id': 'someone-else' } } })),
  broken('routing/unknown-url', (testCase) => ({ ...testCase, expect: { ...testCase.expect, status: 400 } })),
  broken('validation/temperature-too-high', (testCase) => ({ ...testCase, response: { kind: 'json', value: { error: { message: '<any>', type: 'invalid_request_error', param: 'top_p', code: 'invalid_value' } } } })),
  broken('chat/reasoner-json', (testCase) => ({
    ...testCase,
    response: { kind: 'json', value: { ...reasonerJson.value, choices: [{ ...reasonerJson.value.choices[0], message: { ...messageRest, reasoning_content: reasoning } }] } },
  })),
  broken('chat/test-key', (testCase) => ({ ...testCase, engineEvents: undefined })),
];
runServerConformance('wrong expectations (must fail)', fetchFace, { cases: brokenCases, knownFailures: brokenCases.map((testCase) => testCase.id) });
