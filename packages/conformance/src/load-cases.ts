import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  caseFileSchema,
  expectedCompletionSchema,
  savedNamePattern,
  type CaseFile,
  type CaseRequestFile,
  type CaseStepFile,
  type ExpectedCompletion,
  type ReplayEvent,
} from './fixture-schemas.js';
import { parseEngineScript } from './parse-engine-script.js';
import { readResponseStream } from './responses/response-stream-rules.js';

/** The fixtures shipped with this package (`src/` and `dist/` both sit one level down). */
export const defaultFixturesDirectory = fileURLToPath(new URL('../fixtures', import.meta.url));

/** The area that holds client-only streams: what servers other than ours send. */
export const dialectsArea = 'dialects';

/** A request of a case, ready to send: its `{{name}}`s are filled in from earlier steps when sent. */
export interface CaseRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The exact bytes to send, if any. */
  body: Uint8Array<ArrayBuffer> | undefined;
  sign?: { secret: string; timestampSeconds: number };
}

/** A request sent before the case's own (see `before` in the fixtures README). */
export interface CaseStep {
  request: CaseRequest;
  expect: { status: number; headers: Record<string, string | null> };
  /** Saved values of the step's JSON answer: name → dotted path. */
  save: Record<string, string>;
}

/** Which wire a case speaks, from its request's path: `/responses…` is the Responses API. */
export type CaseApi = 'chat' | 'responses';

/** One server case, with its files read and checked. */
export interface ConformanceCase extends Omit<CaseFile, 'request' | 'before'> {
  area: string;
  stem: string;
  api: CaseApi;
  /** Requests sent first on the same host; empty for most cases. */
  before: CaseStep[];
  request: CaseRequest;
  /** What the engine yields; `undefined` when the engine must not be called at all. */
  engineEvents: ReplayEvent[] | undefined;
  response: { kind: 'json'; value: unknown } | { kind: 'sse'; bytes: Uint8Array };
}

/** One stream a client must rebuild into `expected`. */
export interface ClientFixture {
  id: string;
  /** The wire of the stream: what a reader posts to (`/chat/completions` or `/responses`). */
  api: CaseApi;
  covers: string[];
  bytes: Uint8Array;
  expected: ExpectedCompletion;
  /** The chat request that produced the stream (a default one for dialects). */
  request: Record<string, unknown>;
}

export interface FixtureSet {
  cases: ConformanceCase[];
  /** Chat completion streams (ours and the dialects), for readers of that wire. */
  clientFixtures: ClientFixture[];
  /** Responses API streams (`api: 'responses'` cases), for readers of that wire. */
  responsesStreamFixtures: ClientFixture[];
  /** Every fixture file, relative to the fixtures directory. */
  files: string[];
}

const suffixes = ['.case.json', '.engine.jsonl', '.response.json', '.response.sse', '.expected.json'] as const;
type Suffix = (typeof suffixes)[number];

const dialectRequest = {
  model: 'quantum-flash',
  messages: [{ role: 'user', content: 'Hello!' }],
  stream: true,
};

function fail(file: string, problem: string): never {
  throw new Error(`conformance fixture ${file}: ${problem}`);
}

function readJson(directory: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(join(directory, file), 'utf8'));
  } catch (error) {
    return fail(file, `not valid JSON (${(error as Error).message})`);
  }
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const result = schema.safeParse(value);
  if (!result.success) fail(file, z.prettifyError(result.error));
  return result.data;
}

/** Groups `area/stem.suffix` files by `area/stem`; anything else is an orphan. */
function groupFiles(directory: string): { groups: Map<string, Map<Suffix, string>>; files: string[] } {
  const groups = new Map<string, Map<Suffix, string>>();
  const files: string[] = [];
  for (const area of readdirSync(directory).sort()) {
    if (area === 'README.md') continue;
    if (!statSync(join(directory, area)).isDirectory()) fail(area, 'orphan file: fixtures live in <area>/ folders');
    for (const name of readdirSync(join(directory, area)).sort()) {
      const file = `${area}/${name}`;
      files.push(file);
      const suffix = suffixes.find((candidate) => name.endsWith(candidate));
      if (suffix === undefined) fail(file, `orphan file: the name must end with one of ${suffixes.join(', ')}`);
      const key = `${area}/${name.slice(0, -suffix.length)}`;
      if (!groups.has(key)) groups.set(key, new Map());
      groups.get(key)!.set(suffix, file);
    }
  }
  return { groups, files };
}

/** The body bytes, padded with spaces to `padToBytes` when the case asks. */
function requestBody(file: string, request: CaseRequestFile): Uint8Array<ArrayBuffer> | undefined {
  const bytes = unpaddedBody(file, request);
  if (request.padToBytes === undefined) return bytes;
  if (bytes === undefined || bytes.byteLength > request.padToBytes) fail(file, 'padToBytes needs a body no larger than it');
  const padded = new Uint8Array(request.padToBytes).fill(0x20);
  padded.set(bytes);
  return padded;
}

function unpaddedBody(file: string, request: CaseRequestFile): Uint8Array<ArrayBuffer> | undefined {
  if (request.body !== undefined) return new TextEncoder().encode(JSON.stringify(request.body));
  if (request.bodyText !== undefined) return new TextEncoder().encode(request.bodyText);
  if (request.bodyBase64 !== undefined) return Uint8Array.from(Buffer.from(request.bodyBase64, 'base64'));
  if (request.method === 'POST') fail(file, 'a POST case needs a body, bodyText or bodyBase64');
  return undefined;
}

function toCaseRequest(file: string, request: CaseRequestFile): CaseRequest {
  return {
    method: request.method,
    path: request.path,
    headers: request.headers,
    body: requestBody(file, request),
    ...(request.sign !== undefined ? { sign: request.sign } : {}),
  };
}

/** The `{{name}}`s a request uses. */
function namesUsed(request: CaseRequest): string[] {
  const text = [request.path, ...Object.values(request.headers), request.body === undefined ? '' : new TextDecoder().decode(request.body)].join('\n');
  return [...text.matchAll(/\{\{([^}]*)\}\}/g)].map((match) => match[1]!);
}

/** The `before` steps, each `{{name}}` saved by an earlier step. */
function loadSteps(file: string, steps: CaseStepFile[] | undefined, finalRequest: CaseRequest): CaseStep[] {
  const saved = new Set<string>();
  const checkNames = (request: CaseRequest, where: string) => {
    for (const name of namesUsed(request)) {
      if (!savedNamePattern.test(name) || !saved.has(name)) fail(file, `${where} uses {{${name}}}, which no earlier step saves`);
    }
  };
  const loaded = (steps ?? []).map((step, index): CaseStep => {
    const request = toCaseRequest(file, step.request);
    checkNames(request, `before[${index}]`);
    for (const name of Object.keys(step.save ?? {})) saved.add(name);
    return { request, expect: step.expect, save: step.save ?? {} };
  });
  checkNames(finalRequest, 'request');
  return loaded;
}

function loadServerCase(directory: string, key: string, parts: Map<Suffix, string>): ConformanceCase {
  const caseFile = parts.get('.case.json') ?? fail(`${key}.*`, 'orphan files: no .case.json with this stem');
  const parsed = parseWith(caseFileSchema, readJson(directory, caseFile), caseFile);
  if (parsed.id !== key) fail(caseFile, `id must be "${key}" (its area/stem), not "${parsed.id}"`);
  const jsonFile = parts.get('.response.json');
  const sseFile = parts.get('.response.sse');
  if ((jsonFile === undefined) === (sseFile === undefined)) fail(caseFile, 'needs exactly one of .response.json and .response.sse');
  if (sseFile !== undefined && !parts.has('.expected.json')) fail(sseFile, 'needs a .expected.json for client replay');
  if (sseFile === undefined && parts.has('.expected.json')) fail(parts.get('.expected.json')!, 'orphan: no .response.sse with this stem');
  const engineFile = parts.get('.engine.jsonl');
  const [area, stem] = key.split('/') as [string, string];
  const { request: requestFile, before, ...rest } = parsed;
  const request = toCaseRequest(caseFile, requestFile);
  const api: CaseApi = request.path === '/responses' || request.path.startsWith('/responses/') ? 'responses' : 'chat';
  // The proof that a stream streams holds the engine's last event for the first frame: an
  // earlier step reaching the engine would release that hold and prove nothing.
  if (before !== undefined && sseFile !== undefined) fail(caseFile, 'a case with before steps answers JSON (a stream is proven on a case of its own)');
  if (sseFile !== undefined && api === 'responses') {
    const { problems } = readResponseStream(readFileSync(join(directory, sseFile), 'utf8'));
    if (problems.length > 0) fail(sseFile, `not a Responses stream as decisions §10 has it:\n  ${problems.join('\n  ')}`);
  }
  return {
    ...rest,
    area,
    stem,
    api,
    before: loadSteps(caseFile, before, request),
    request,
    engineEvents: engineFile === undefined ? undefined : parseEngineScript(readFileSync(join(directory, engineFile), 'utf8'), engineFile),
    response:
      jsonFile !== undefined
        ? { kind: 'json', value: readJson(directory, jsonFile) }
        : { kind: 'sse', bytes: new Uint8Array(readFileSync(join(directory, sseFile!))) },
  };
}

function loadClientFixture(directory: string, key: string, parts: Map<Suffix, string>, serverCase: ConformanceCase | undefined): ClientFixture {
  const sseFile = parts.get('.response.sse')!;
  const expectedFile = parts.get('.expected.json') ?? fail(sseFile, 'needs a .expected.json');
  const expected = parseWith(expectedCompletionSchema, readJson(directory, expectedFile), expectedFile);
  const caseBody = serverCase?.request.body;
  return {
    id: key,
    api: serverCase?.api ?? 'chat',
    covers: [...(expected.covers ?? [])],
    bytes: new Uint8Array(readFileSync(join(directory, sseFile))),
    expected,
    request: caseBody === undefined ? dialectRequest : (JSON.parse(new TextDecoder().decode(caseBody)) as Record<string, unknown>),
  };
}

/**
 * Reads and checks every fixture: server cases (`<area>/<stem>.case.json` with its engine
 * script and expected response) and client streams (each `.response.sse` with its
 * `.expected.json`). Throws on a malformed file and on any orphan file.
 */
export function loadFixtures(directory: string = defaultFixturesDirectory): FixtureSet {
  const { groups, files } = groupFiles(directory);
  const cases: ConformanceCase[] = [];
  const clientFixtures: ClientFixture[] = [];
  const responsesStreamFixtures: ClientFixture[] = [];
  for (const [key, parts] of groups) {
    const isDialect = key.startsWith(`${dialectsArea}/`);
    if (isDialect) {
      for (const [suffix, file] of parts) {
        if (suffix !== '.response.sse' && suffix !== '.expected.json') fail(file, `orphan: ${dialectsArea}/ holds only .response.sse and .expected.json`);
      }
      if (!parts.has('.response.sse')) fail(`${key}.expected.json`, 'orphan: no .response.sse with this stem');
    }
    const serverCase = isDialect ? undefined : loadServerCase(directory, key, parts);
    if (serverCase !== undefined) cases.push(serverCase);
    if (!parts.has('.response.sse')) continue;
    const fixture = loadClientFixture(directory, key, parts, serverCase);
    (serverCase?.api === 'responses' ? responsesStreamFixtures : clientFixtures).push(fixture);
  }
  return { cases, clientFixtures, responsesStreamFixtures, files };
}

/** The server cases, checked (see {@link loadFixtures}). */
export function loadCases(directory?: string): ConformanceCase[] {
  return loadFixtures(directory).cases;
}

/** The chat completion streams for clients, checked (see {@link loadFixtures}). */
export function loadClientFixtures(directory?: string): ClientFixture[] {
  return loadFixtures(directory).clientFixtures;
}

/** The Responses API streams for readers of that wire, checked (see {@link loadFixtures}). */
export function loadResponsesStreamFixtures(directory?: string): ClientFixture[] {
  return loadFixtures(directory).responsesStreamFixtures;
}
