import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { caseFileSchema, expectedCompletionSchema, type CaseFile, type ExpectedCompletion, type ReplayEvent } from './fixture-schemas.js';
import { parseEngineScript } from './parse-engine-script.js';

/** The fixtures shipped with this package (`src/` and `dist/` both sit one level down). */
export const defaultFixturesDirectory = fileURLToPath(new URL('../fixtures', import.meta.url));

/** The area that holds client-only streams: what servers other than ours send. */
export const dialectsArea = 'dialects';

/** One server case, with its files read and checked. */
export interface ConformanceCase extends Omit<CaseFile, 'request'> {
  area: string;
  stem: string;
  request: {
    method: string;
    path: string;
    headers: Record<string, string>;
    /** The exact bytes to send, if any. */
    body: Uint8Array<ArrayBuffer> | undefined;
    sign?: { secret: string; timestampSeconds: number };
  };
  /** What the engine yields; `undefined` when the engine must not be called at all. */
  engineEvents: ReplayEvent[] | undefined;
  response: { kind: 'json'; value: unknown } | { kind: 'sse'; bytes: Uint8Array };
}

/** One stream a client must rebuild into `expected`. */
export interface ClientFixture {
  id: string;
  covers: string[];
  bytes: Uint8Array;
  expected: ExpectedCompletion;
  /** The chat request that produced the stream (a default one for dialects). */
  request: Record<string, unknown>;
}

export interface FixtureSet {
  cases: ConformanceCase[];
  clientFixtures: ClientFixture[];
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
function requestBody(file: string, request: CaseFile['request']): Uint8Array<ArrayBuffer> | undefined {
  const bytes = unpaddedBody(file, request);
  if (request.padToBytes === undefined) return bytes;
  if (bytes === undefined || bytes.byteLength > request.padToBytes) fail(file, 'padToBytes needs a body no larger than it');
  const padded = new Uint8Array(request.padToBytes).fill(0x20);
  padded.set(bytes);
  return padded;
}

function unpaddedBody(file: string, request: CaseFile['request']): Uint8Array<ArrayBuffer> | undefined {
  if (request.body !== undefined) return new TextEncoder().encode(JSON.stringify(request.body));
  if (request.bodyText !== undefined) return new TextEncoder().encode(request.bodyText);
  if (request.bodyBase64 !== undefined) return Uint8Array.from(Buffer.from(request.bodyBase64, 'base64'));
  if (request.method === 'POST') fail(file, 'a POST case needs a body, bodyText or bodyBase64');
  return undefined;
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
  const { request, ...rest } = parsed;
  return {
    ...rest,
    area,
    stem,
    request: {
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: requestBody(caseFile, request),
      ...(request.sign !== undefined ? { sign: request.sign } : {}),
    },
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
    if (parts.has('.response.sse')) clientFixtures.push(loadClientFixture(directory, key, parts, serverCase));
  }
  return { cases, clientFixtures, files };
}

/** The server cases, checked (see {@link loadFixtures}). */
export function loadCases(directory?: string): ConformanceCase[] {
  return loadFixtures(directory).cases;
}

/** The client streams, checked (see {@link loadFixtures}). */
export function loadClientFixtures(directory?: string): ClientFixture[] {
  return loadFixtures(directory).clientFixtures;
}
