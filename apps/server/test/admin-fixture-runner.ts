import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import * as z from 'zod';
import { parseConfigFile, resolveConfig } from '../src/config.js';
import { createQuantumServer } from '../src/create-server.js';

/** Where the scenarios live. */
const adminFixturesDirectory = fileURLToPath(new URL('./admin-fixtures/', import.meta.url));

/** The admin tokens every scenario's server has. */
export const adminTokens = [
  { id: 'ops', token: 'qc-admin-ops-4f1d8a2b9c3e7f60a5d4' },
  { id: 'ci', token: 'qc-admin-ci-0b7e9d2c4a6f8e1d3c5b' },
];

/** The clock every scenario starts at: 2023-11-14T22:13:20Z. */
export const scenarioStart = 1_700_000_000_000;

const requestStep = z.strictObject({
  note: z.string().optional(),
  request: z.strictObject({
    method: z.enum(['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS']),
    path: z.string().startsWith('/'),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    bodyText: z.string().optional(),
    /** Spaces (JSON whitespace) appended up to this many bytes: a large body without a large file. */
    padToBytes: z.int().min(1).optional(),
  }),
  expect: z.strictObject({
    status: z.int(),
    headers: z.record(z.string(), z.string().nullable()).optional(),
    body: z.unknown().optional(),
    bodyExcludes: z.array(z.string()).optional(),
  }),
});
const clockStep = z.strictObject({ note: z.string().optional(), advanceClockMs: z.int().min(1) });

const scenarioSchema = z.strictObject({
  description: z.string().min(1),
  config: z.record(z.string(), z.unknown()).optional(),
  steps: z.array(z.union([requestStep, clockStep])).min(1),
});
export type Scenario = z.infer<typeof scenarioSchema> & { id: string };
type RequestStep = z.infer<typeof requestStep>;

/** Every scenario under the fixtures directory, checked. */
export function loadScenarios(directory = adminFixturesDirectory): Scenario[] {
  const scenarios: Scenario[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, name.name);
      if (name.isDirectory()) walk(path);
      else if (name.name.endsWith('.json')) {
        const id = relative(directory, path).slice(0, -'.json'.length);
        const parsed = scenarioSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
        if (!parsed.success) throw new Error(`admin fixture ${id}: ${z.prettifyError(parsed.error)}`);
        scenarios.push({ ...parsed.data, id });
      } else if (name.name !== 'README.md') throw new Error(`admin fixture ${relative(directory, path)}: not a scenario (.json)`);
    }
  };
  walk(directory);
  return scenarios;
}

type Bindings = Map<string, unknown>;
const whole = /^\{\{(\w+)\}\}$/u;

/** `{{name}}` replaced by bound values, in strings at any depth. */
function substitute(value: unknown, bindings: Bindings): unknown {
  if (typeof value === 'string') {
    const name = whole.exec(value)?.[1];
    if (name !== undefined) return bound(bindings, name);
    return value.replace(/\{\{(\w+)\}\}/gu, (_, key: string) => String(bound(bindings, key)));
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, bindings));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, substitute(inner, bindings)]));
  return value;
}

function bound(bindings: Bindings, name: string): unknown {
  if (!bindings.has(name)) throw new Error(`{{${name}}} is used before a response bound it`);
  return bindings.get(name);
}

/**
 * The expected value with its placeholders resolved against the actual one (binding `{{name}}`
 * on first sight), so that a deep comparison then reports only real differences.
 */
function resolveExpected(expected: unknown, actual: unknown, bindings: Bindings): unknown {
  if (expected === '<any>') return typeof actual === 'string' && actual !== '' ? actual : expected;
  if (expected === '<int>') return Number.isInteger(actual) ? actual : expected;
  if (typeof expected === 'string') {
    const name = whole.exec(expected)?.[1];
    // Bound values inside a longer string (an error message naming a key).
    if (name === undefined) return expected.includes('{{') ? substitute(expected, bindings) : expected;
    if (!bindings.has(name) && actual !== undefined && actual !== null) bindings.set(name, actual);
    return bindings.has(name) ? bindings.get(name) : expected;
  }
  if (Array.isArray(expected)) return expected.map((item, index) => resolveExpected(item, Array.isArray(actual) ? actual[index] : undefined, bindings));
  if (typeof expected === 'object' && expected !== null) {
    const source = typeof actual === 'object' && actual !== null ? (actual as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(expected).map(([key, value]) => [key, resolveExpected(value, source[key], bindings)]));
  }
  return expected;
}

function keyOrder(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => keyOrder(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const keys = Object.keys(value);
  return [`${path}: ${keys.join(', ')}`, ...keys.flatMap((key) => keyOrder((value as Record<string, unknown>)[key], `${path}.${key}`))];
}

/** What a replayed step got: for checks beyond the fixture (the OpenAPI document). */
export interface StepResult {
  step: RequestStep;
  path: string;
  status: number;
  body: unknown;
}

/** A running scenario server. */
export interface ScenarioServer {
  origin: string;
  close(): Promise<void>;
}

/** Starts the ready server in this process for a scenario: fresh store, admin tokens, a clock the steps move. */
export async function startScenarioServer(config: Record<string, unknown> = {}, clock: { now: number }): Promise<ScenarioServer> {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-admin-'));
  const file = parseConfigFile({ logLevel: 'silent', dataDir: join(directory, 'data'), metrics: false, overload: false, adminTokens, ...config });
  const app = await createQuantumServer(resolveConfig(file, {}), { cwd: directory, env: {}, now: () => clock.now });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    origin,
    async close() {
      await app.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Replays a scenario against a fresh server and checks every response: status, the listed
 * headers and the body (deeply, key order included). Returns what each request got.
 */
export async function replayScenario(scenario: Scenario): Promise<StepResult[]> {
  const clock = { now: scenarioStart };
  const server = await startScenarioServer(scenario.config, clock);
  const bindings: Bindings = new Map();
  const results: StepResult[] = [];
  try {
    for (const [index, step] of scenario.steps.entries()) {
      if ('advanceClockMs' in step) {
        clock.now += step.advanceClockMs;
        continue;
      }
      const where = `step ${index + 1} (${step.request.method} ${step.request.path}${step.note ? `: ${step.note}` : ''})`;
      const path = String(substitute(step.request.path, bindings));
      const headers = substitute(step.request.headers ?? {}, bindings) as Record<string, string>;
      const raw = step.request.body !== undefined ? JSON.stringify(substitute(step.request.body, bindings)) : step.request.bodyText;
      const body = raw !== undefined && step.request.padToBytes !== undefined ? raw.padEnd(step.request.padToBytes, ' ') : raw;
      const response = await fetch(`${server.origin}${path}`, { method: step.request.method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      expect(response.status, `${where}: status (body: ${text.slice(0, 500)})`).toBe(step.expect.status);
      for (const [name, value] of Object.entries(step.expect.headers ?? {})) {
        const expected = value === null ? null : (resolveExpected(value, response.headers.get(name) ?? undefined, bindings) as string);
        expect(response.headers.get(name), `${where}: header ${name}`).toBe(expected);
      }
      let actual: unknown = text;
      if ((response.headers.get('content-type') ?? '').startsWith('application/json') && text !== '') actual = JSON.parse(text);
      if (step.expect.body !== undefined) {
        const expected = resolveExpected(step.expect.body, actual, bindings);
        expect(actual, `${where}: body`).toEqual(expected);
        expect(keyOrder(actual), `${where}: key order`).toEqual(keyOrder(expected));
      }
      for (const excluded of step.expect.bodyExcludes ?? []) {
        expect(text, `${where}: body must not contain ${excluded}`).not.toContain(String(substitute(excluded, bindings)));
      }
      results.push({ step, path, status: response.status, body: actual });
    }
  } finally {
    await server.close();
  }
  return results;
}
