/**
 * The ready server against its own OpenAPI documents, property-based (what Schemathesis does),
 * with `createOpenApiProperties` of the conformance package: requests generated from the
 * schemas of every operation — the chat API under `/v1` and `/compat/v1` with the starter test
 * key, the admin API under `/admin/v1` with an admin token — valid ones and ones broken in one
 * place, over HTTP; every answer checked against the document (status, headers, body, each
 * stream event). The admin calls work on an organisation of their own (`props`) and one of
 * its keys, so the chat key's organisation is never changed.
 *
 * OPENAPI_RUNS (default 100) sets the number of cases of each property; FUZZ_SEED replays a
 * run (its seed is printed).
 */
import {
  createOpenApiProperties,
  crossFieldRuleOf,
  followChatCrossFieldRules,
  followResponsesCrossFieldRules,
  responsesRefusalOf,
  streamRouteRefusalOf,
  type PropertyOperation,
  type RefusalError,
  type RequestParts,
} from '@quantum-chat/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminBasePath } from '../src/admin/admin-openapi.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.js';

const runs = Number(process.env.OPENAPI_RUNS ?? 100);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
const adminToken = 'properties-admin-token-0123456789abcdef';
/** The organisation the admin calls are pointed at, and a key of it. */
const organisation = 'props';

let server: InProcessServer;
let keyId: string;
let properties: Awaited<ReturnType<typeof createOpenApiProperties>>;

const isAdmin = (operation: PropertyOperation) => operation.base === adminBasePath;

/** Admin calls pointed, most of the time, at the organisation and key made for them, so they reach more than 404. */
function pointAtOwnOrganisation(parts: RequestParts): RequestParts {
  const path = { ...parts.path };
  if ('name' in path) path.name = organisation;
  if ('id' in path) path.id = keyId;
  const query = { ...parts.query };
  if (typeof query.organisation === 'string') query.organisation = organisation;
  const body = typeof parts.body === 'object' && parts.body !== null && 'organisation' in parts.body ? { ...parts.body, organisation } : parts.body;
  return { ...parts, path, query, ...(body !== undefined ? { body } : {}) };
}

/** Refusals of a valid admin request: names nobody created, state the request cannot know, rules in words. */
function explainAdminRefusal(status: number, error: RefusalError | undefined): string | undefined {
  if (error === undefined) return undefined;
  if (status === 404 && ['organisation_not_found', 'key_not_found'].includes(error.code)) return 'a name or id nobody created';
  if (status === 409) return `the state of what it names (${error.code})`;
  // Rules across time or fields, which the document states in words.
  if (status === 400 && error.param === 'expires_at' && /in the future/u.test(error.message)) return 'an expiry in the future';
  if (status === 400 && error.param === 'since' && /after 'until'|at most \d+ days/u.test(error.message)) return 'a usage report of at most 366 days';
  return undefined;
}

beforeAll(async () => {
  // Broken requests send wrong admin tokens on purpose, all from one address: not guesses to throttle.
  server = await startInProcessServer({ adminToken, adminTokenFailuresPerMinute: 1_000_000 });
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  expect((await fetch(`${server.origin}${adminBasePath}/organisations`, { method: 'POST', headers: admin, body: JSON.stringify({ name: organisation, plan: 'free' }) })).status).toBe(201);
  const created = await fetch(`${server.origin}${adminBasePath}/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ organisation }) });
  keyId = ((await created.json()) as { id: string }).id;
  properties = await createOpenApiProperties({
    origin: server.origin,
    mounts: ['/v1', '/compat/v1'],
    authorization: (operation) => `Bearer ${isAdmin(operation) ? adminToken : server.testKey}`,
    mend: (operation, parts) => {
      if (isAdmin(operation)) return pointAtOwnOrganisation(parts);
      if (operation.found.template === '/responses') return { ...parts, body: followResponsesCrossFieldRules(parts.body) };
      return operation.found.template === '/chat/completions' ? { ...parts, body: followChatCrossFieldRules(parts.body as Record<string, unknown>) } : parts;
    },
    explainRefusal: (operation, status, error) => {
      if (isAdmin(operation)) return explainAdminRefusal(status, error);
      if (status === 429) return 'a rate limit of the organisation';
      const streamRefusal = streamRouteRefusalOf(operation.found.template, status, error);
      if (streamRefusal !== undefined) return streamRefusal;
      const responsesRefusal = responsesRefusalOf(operation.found.template, status, error);
      if (responsesRefusal !== undefined) return responsesRefusal;
      return operation.found.template === '/chat/completions' && status === 400 && error !== undefined ? crossFieldRuleOf(error) : undefined;
    },
    weight: (operation) => (operation.found.template === '/chat/completions' ? 8 : operation.found.template === '/responses' ? 4 : 1),
  });
  console.log(`ready server openapi properties: FUZZ_SEED=${seed} OPENAPI_RUNS=${runs} (replay: FUZZ_SEED=${seed} OPENAPI_RUNS=${runs} pnpm exec vitest run --project server test/openapi-properties.test.ts)`);
});
afterAll(async () => {
  await server?.close();
});

describe('the ready server against its own OpenAPI documents (property-based)', () => {
  it('should cover the chat API on both mounts and the admin API', () => {
    const covered = new Set(properties.operations.map((operation) => `${operation.base} ${operation.found.method} ${operation.found.template}`));
    expect(covered).toContain('/v1 post /chat/completions');
    expect(covered).toContain('/compat/v1 post /chat/completions');
    expect(covered).toContain(`${adminBasePath} post /keys/{id}/rotate`);
  });

  // Generous timeouts: a failing case is shrunk, a request at a time, before it is reported.
  it('should answer valid requests with a documented 2xx, or refuse them only for a reason the document gives', { timeout: 300_000 }, async () => {
    const started = performance.now();
    const tally = await properties.validRequests({ runs, seed });
    console.log(`ready server openapi properties, ${runs} valid requests in ${Math.round(performance.now() - started)} ms: ${JSON.stringify(tally)}`);
    // About three in five are answered with the weights above (the stored-response routes mostly
    // answer 404 to ids nobody made); a third leaves room for the draw of one seed.
    expect(tally['2xx']).toBeGreaterThan(runs / 3);
  });

  it('should refuse requests broken against the document with a documented 4xx naming the broken place', { timeout: 300_000 }, async () => {
    const started = performance.now();
    const tally = await properties.brokenRequests({ runs, seed });
    console.log(`ready server openapi properties, ${runs} broken requests in ${Math.round(performance.now() - started)} ms, refused by status and code: ${JSON.stringify(tally)}`);
  });

  it('should answer a method the document does not list for a path with 405, Allow and the error envelope', async () => {
    expect((await properties.unlistedMethods())['405']).toBeGreaterThan(0);
  });
});
