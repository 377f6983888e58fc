/**
 * The served OpenAPI document drives the requests and judges the answers (what Schemathesis
 * does; it is not installable here): fast-check builds requests from each operation's schemas
 * (path and header parameters, JSON body), valid ones and ones broken in one place against
 * their schema, sends them over HTTP to a Fastify host (the reference engine, a static test
 * key, `/v1` in the Quantum and `/compat/v1` in the OpenAI stream format), and checks every
 * answer against that mount's own document: a documented status, the documented headers, the
 * body, and each event of a stream.
 *
 * A valid request is answered 2xx, unless the server refuses it with a 400 for a rule across
 * fields that JSON Schema cannot state (the document says them in words; most generated
 * requests are mended to keep them). A broken one is refused with a documented 4xx whose
 * `param` names the broken place. A method the document does not list is 405 with `Allow`.
 * OPENAPI_RUNS (default 100) sets the number of cases of each property; FUZZ_SEED replays a
 * run (its seed is printed).
 */
import { createOpenApiChecker, parseEventStream, type FoundOperation, type OpenApiChecker, type OpenApiDocument } from '@quantum-chat/conformance';
import { generateApiKey, staticApiKeys } from '@quantum-chat/core';
import { formatParamPath } from '@quantum-chat/core/host';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arbitraryFromSchema, type SchemaContext } from '../src/openapi/arbitrary-from-schema.js';
import { crossFieldRuleOf, followChatCrossFieldRules, type RefusalError } from '../src/openapi/chat-cross-field-rules.js';
import { pickMutation } from '../src/openapi/mutate-against-schema.js';
import { canSendMutation, requestPartsSchema, toOperationRequest, type OperationRequest, type RequestParts } from '../src/openapi/operation-requests.js';
import { startTwoFormatHost, type TwoFormatHost } from '../src/start-two-format-host.js';

const runs = Number(process.env.OPENAPI_RUNS ?? 100);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
const key = generateApiKey('test');
const httpMethods = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

interface Operation {
  found: FoundOperation;
  partsSchema: Record<string, unknown>;
  parts: fc.Arbitrary<RequestParts>;
  needsKey: boolean;
}

/** A mount of the API, its own document, and the operations generated from it. */
interface Target {
  mount: '/v1' | '/compat/v1';
  checker: OpenApiChecker;
  context: SchemaContext;
  operations: Operation[];
}

let host: TwoFormatHost;
let targets: Target[];

function operationsOf(checker: OpenApiChecker, context: SchemaContext): Operation[] {
  return Object.entries(checker.document.paths).flatMap(([template, item]) =>
    // Paths with a server of their own (the ready server's admin API) are not on this host.
    'servers' in item
      ? []
      : httpMethods
          .filter((method) => method in item)
          .map((method) => {
            const found = checker.findOperation(method, template.replace(/\{[^}]+\}/gu, 'x'))!;
            const partsSchema = requestPartsSchema(found);
            // An operation needs a key unless one of its security requirements is empty.
            const security = (found.operation as { security?: Record<string, unknown>[] }).security;
            return { found, partsSchema, parts: arbitraryFromSchema(partsSchema, context) as fc.Arbitrary<RequestParts>, needsKey: security?.some((requirement) => Object.keys(requirement).length === 0) !== true };
          }),
  );
}

beforeAll(async () => {
  host = await startTwoFormatHost({ engine: createReferenceEngine(), accessControl: staticApiKeys([key]) });
  targets = [];
  for (const mount of ['/v1', '/compat/v1'] as const) {
    const checker = createOpenApiChecker((await (await fetch(`${host.origin}${mount}/openapi.json`)).json()) as OpenApiDocument);
    const context = { resolve: checker.resolve, accepts: checker.accepts };
    targets.push({ mount, checker, context, operations: operationsOf(checker, context) });
  }
  console.log(`openapi properties: FUZZ_SEED=${seed} OPENAPI_RUNS=${runs} (replay: FUZZ_SEED=${seed} OPENAPI_RUNS=${runs} pnpm exec vitest run --project fuzz test/openapi-properties.test.ts)`);
});
afterAll(async () => {
  await host?.close();
});

async function send(mount: string, request: OperationRequest, authorization: string | undefined): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  if (authorization !== undefined) headers.authorization = authorization;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${host.origin}${mount}${request.path}`, { method: request.method, headers, ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}) });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

function describeCase(mount: string, request: OperationRequest, answer: Answer, note = ''): string {
  return `${request.method} ${mount}${request.path} ${JSON.stringify(request.headers)} ${JSON.stringify(request.body)?.slice(0, 1500) ?? ''}${note}\n→ ${answer.status} ${answer.body.slice(0, 600)}`;
}

function errorOf(answer: Answer): RefusalError | undefined {
  try {
    return (JSON.parse(answer.body) as { error?: RefusalError }).error;
  } catch {
    return undefined;
  }
}

/**
 * Whether `param` names the broken place, a field in it, or the object holding it: one path
 * leads to the other, both written as the server writes them (`messages[0].role`, `logit_bias.0`).
 */
function related(param: string, broken: (string | number)[]): boolean {
  const place = formatParamPath(broken);
  const leadsTo = (outer: string, inner: string) => inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return leadsTo(place, param) || leadsTo(param, place);
}

/**
 * A mount and an operation of it (as indexes, so a counterexample prints short), weighted
 * towards chat completions (where the schemas are), with request parts generated for it.
 */
const caseOf = () =>
  fc.nat(targets.length - 1).chain((targetIndex) => {
    const { operations } = targets[targetIndex]!;
    const operationIndex = fc.oneof(...operations.map((operation, index) => ({ weight: operation.found.template === '/chat/completions' ? 6 : 1, arbitrary: fc.constant(index) })));
    return operationIndex.chain((index) => fc.record({ targetIndex: fc.constant(targetIndex), operationIndex: fc.constant(index), parts: operations[index]!.parts }));
  });

/** Generated request parts mended to keep the chat request's rules across fields (checked to stay valid). */
function mended(target: Target, operation: Operation, parts: RequestParts): RequestParts {
  if (operation.found.template !== '/chat/completions' || typeof parts.body !== 'object' || parts.body === null) return parts;
  const result = { ...parts, body: followChatCrossFieldRules(parts.body as Record<string, unknown>) };
  expect(target.checker.validate(operation.partsSchema, result), `mending broke the request: ${JSON.stringify(result.body)}`).toEqual([]);
  return result;
}

const count = (tally: Record<string, number>, name: string, by = 1) => {
  tally[name] = (tally[name] ?? 0) + by;
};

describe('the API against its own OpenAPI document (property-based)', () => {
  // Generous timeouts: a failing case is shrunk, a request at a time, before it is reported.
  it('should answer valid requests with a documented 2xx, or refuse them only for a rule across fields', { timeout: 300_000 }, async () => {
    const tally: Record<string, number> = {};
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(
        caseOf(),
        fc.nat(3),
        async ({ targetIndex, operationIndex, parts: generated }, mend) => {
          const target = targets[targetIndex]!;
          const operation = target.operations[operationIndex]!;
          // Three in four chat requests keep the rules across fields; the rest test their refusals.
          const parts = mend === 0 ? generated : mended(target, operation, generated);
          const request = toOperationRequest(operation.found, parts);
          const answer = await send(target.mount, request, `Bearer ${key}`);
          expect(target.checker.checkResponse(operation.found, answer), describeCase(target.mount, request, answer)).toEqual([]);
          count(tally, `${request.method} ${operation.found.template} ${answer.status}`);
          if (answer.status < 300) {
            count(tally, '2xx');
            if (answer.headers.get('content-type')?.startsWith('text/event-stream') === true) {
              count(tally, 'streams');
              count(tally, 'stream events', parseEventStream(answer.body).length);
            }
            if (answer.headers.has('x-quantum-ignored-params')) count(tally, 'with x-quantum-ignored-params');
            return;
          }
          const error = errorOf(answer);
          const rule = error === undefined || answer.status !== 400 ? undefined : crossFieldRuleOf(error);
          expect(rule, `a valid request was refused for a reason the document does not give:\n${describeCase(target.mount, request, answer)}`).toBeDefined();
          count(tally, `refused: ${rule!}`);
        },
      ),
      { numRuns: runs, seed },
    );
    console.log(`openapi properties, ${runs} valid requests in ${Math.round(performance.now() - started)} ms: ${JSON.stringify(tally)}`);
    // The generator makes requests the server answers, streams among them, not only ones it refuses.
    expect(tally['2xx']).toBeGreaterThan(runs / 2);
    expect(tally.streams).toBeGreaterThan(0);
  });

  it('should refuse requests broken against the document with a documented 4xx naming the broken place', { timeout: 300_000 }, async () => {
    const tally: Record<string, number> = {};
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(
        caseOf(),
        fc.nat(),
        fc.oneof({ weight: 6, arbitrary: fc.constant('schema') }, fc.constant('no key'), fc.constant('malformed key')),
        async ({ targetIndex, operationIndex, parts: generated }, pick, way) => {
          const target = targets[targetIndex]!;
          const operation = target.operations[operationIndex]!;
          const { found, partsSchema } = operation;
          // Broken in one place only: the rules across fields are kept, so the break is the one fault.
          const parts = mended(target, operation, generated);
          const byKey = way !== 'schema' && operation.needsKey;
          const mutation = byKey
            ? { value: parts, description: way === 'no key' ? 'no Authorization header' : 'an API key of the wrong form', path: [] }
            : pickMutation(partsSchema, parts, target.context, pick, (path, replacement) => canSendMutation(found, path, replacement));
          fc.pre(mutation !== undefined);
          const request = toOperationRequest(found, mutation!.value as RequestParts);
          const answer = await send(target.mount, request, way === 'no key' && byKey ? undefined : `Bearer ${way === 'malformed key' && byKey ? 'qc_test_not-a-key' : key}`);
          const note = `\n(broken: ${mutation!.description})`;
          expect(answer.status >= 400 && answer.status < 500, `a broken request was not refused with a 4xx:\n${describeCase(target.mount, request, answer, note)}`).toBe(true);
          expect(target.checker.checkResponse(found, answer), describeCase(target.mount, request, answer, note)).toEqual([]);
          if (byKey) expect(answer.status, describeCase(target.mount, request, answer, note)).toBe(401);
          // A field of the body at fault is named in `param` (decisions §2): the place, a field in it, or the object holding it.
          const broken = mutation!.path[0] === 'body' && mutation!.path.length > 1 ? mutation!.path.slice(1) : undefined;
          const error = errorOf(answer);
          if (broken !== undefined && answer.status === 400) {
            expect(error?.param != null && related(error.param, broken), `param does not name the broken place:\n${describeCase(target.mount, request, answer, note)}`).toBe(true);
          }
          count(tally, `${answer.status} ${error?.code ?? ''}`);
        },
      ),
      { numRuns: runs, seed },
    );
    console.log(`openapi properties, ${runs} broken requests in ${Math.round(performance.now() - started)} ms, refused by status and code: ${JSON.stringify(tally)}`);
  });

  it('should answer a method the document does not list for a path with 405, Allow and the error envelope', async () => {
    for (const { mount, checker } of targets) {
      for (const [template, item] of Object.entries(checker.document.paths)) {
        if ('servers' in item) continue;
        const listed = httpMethods.filter((method) => method in item).map((method) => method.toUpperCase());
        const path = template.replace(/\{[^}]+\}/gu, 'quantum-lite');
        for (const method of httpMethods.map((name) => name.toUpperCase()).filter((name) => !listed.includes(name))) {
          const response = await fetch(`${host.origin}${mount}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
          const body = await response.text();
          expect(response.status, `${method} ${mount}${path}`).toBe(405);
          expect(response.headers.get('allow')?.split(/,\s*/u).filter((name) => name !== 'HEAD').sort()).toEqual(listed.sort());
          expect(response.headers.get('x-request-id')).toBeTruthy();
          expect(checker.validate({ $ref: '#/components/schemas/ErrorEnvelope' }, JSON.parse(body)), body).toEqual([]);
        }
      }
    }
  });
});
