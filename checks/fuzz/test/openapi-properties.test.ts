/**
 * The served OpenAPI document drives the requests and judges the answers (what Schemathesis
 * does; it is not installable here), with `createOpenApiProperties` of the conformance
 * package: fast-check builds requests from each operation's schemas, valid ones and ones broken
 * in one place, sends them over HTTP to a Fastify host (the reference engine, a static test
 * key, `/v1` in the Quantum and `/compat/v1` in the OpenAI stream format), and checks every
 * answer against that mount's own document: a documented status, the documented headers, the
 * body, and each event of a stream.
 *
 * A valid chat or Responses request is refused only for a rule across fields that JSON Schema cannot state
 * (the document says them in words; most generated requests are mended to keep them).
 * OPENAPI_RUNS (default 100) sets the number of cases of each property; FUZZ_SEED replays a
 * run (its seed is printed).
 */
import { createOpenApiProperties, crossFieldRuleOf, followChatCrossFieldRules, followResponsesCrossFieldRules, responsesRefusalOf, streamRouteRefusalOf } from '@quantum-chat/conformance';
import { generateApiKey, staticApiKeys } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwoFormatHost, type TwoFormatHost } from '../src/start-two-format-host.js';

const runs = Number(process.env.OPENAPI_RUNS ?? 100);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
const key = generateApiKey('test');
const chatCompletions = '/chat/completions';
const createResponse = '/responses';

let host: TwoFormatHost;
let properties: Awaited<ReturnType<typeof createOpenApiProperties>>;

beforeAll(async () => {
  host = await startTwoFormatHost({ engine: createReferenceEngine(), accessControl: staticApiKeys([key]) });
  properties = await createOpenApiProperties({
    origin: host.origin,
    mounts: ['/v1', '/compat/v1'],
    authorization: () => `Bearer ${key}`,
    mend: (operation, parts) => {
      if (operation.found.template === chatCompletions) return { ...parts, body: followChatCrossFieldRules(parts.body as Record<string, unknown>) };
      if (operation.found.template === createResponse && operation.found.method === 'post') return { ...parts, body: followResponsesCrossFieldRules(parts.body) };
      return parts;
    },
    explainRefusal: (operation, status, error) =>
      streamRouteRefusalOf(operation.found.template, status, error) ??
      responsesRefusalOf(operation.found.template, status, error) ??
      (operation.found.template === chatCompletions && status === 400 && error !== undefined ? crossFieldRuleOf(error) : undefined),
    // Chat completions and created responses hold the schemas worth generating from; the
    // routes of stored ones mostly answer 404 to ids nobody made.
    weight: (operation) => {
      if (operation.found.template === chatCompletions) return 8;
      return operation.found.template === createResponse && operation.found.method === 'post' ? 6 : 1;
    },
  });
  console.log(`openapi properties: FUZZ_SEED=${seed} OPENAPI_RUNS=${runs} (replay: FUZZ_SEED=${seed} OPENAPI_RUNS=${runs} pnpm exec vitest run --project fuzz test/openapi-properties.test.ts)`);
});
afterAll(async () => {
  await host?.close();
});

describe('the API against its own OpenAPI document (property-based)', () => {
  // Generous timeouts: a failing case is shrunk, a request at a time, before it is reported.
  it('should answer valid requests with a documented 2xx, or refuse them only for a rule across fields', { timeout: 300_000 }, async () => {
    const started = performance.now();
    const tally = await properties.validRequests({ runs, seed });
    console.log(`openapi properties, ${runs} valid requests in ${Math.round(performance.now() - started)} ms: ${JSON.stringify(tally)}`);
    // The generator makes requests the server answers (streams among them), not only ones it
    // refuses: about three in five with the weights above (the stored-response routes mostly
    // answer 404 to ids nobody made); a third leaves room for the draw of one seed.
    expect(tally['2xx']).toBeGreaterThan(runs / 3);
  });

  it('should refuse requests broken against the document with a documented 4xx naming the broken place', { timeout: 300_000 }, async () => {
    const started = performance.now();
    const tally = await properties.brokenRequests({ runs, seed });
    console.log(`openapi properties, ${runs} broken requests in ${Math.round(performance.now() - started)} ms, refused by status and code: ${JSON.stringify(tally)}`);
  });

  it('should answer a method the document does not list for a path with 405, Allow and the error envelope', async () => {
    expect((await properties.unlistedMethods())['405']).toBeGreaterThan(0);
  });
});
