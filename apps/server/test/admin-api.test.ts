// The admin API over real HTTP: the scenarios of test/admin-fixtures replayed against a fresh
// server each, every response also checked against what the served OpenAPI document says of
// it; then what the fixtures cannot say (sums of tokens, the document itself, the log line).
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { adminTokens, loadScenarios, replayScenario, scenarioStart, startScenarioServer, type StepResult } from './admin-fixture-runner.js';
import { createSchemaValidator } from './openapi-schemas.js';

type Json = Record<string, unknown>;
type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

const ops = { authorization: `Bearer ${adminTokens[0]!.token}`, 'content-type': 'application/json' };

let document: Json;
let compatDocument: Json;
let schemas: ReturnType<typeof createSchemaValidator>;

beforeAll(async () => {
  const server = await startScenarioServer({}, { now: scenarioStart });
  try {
    document = (await (await fetch(`${server.origin}/v1/openapi.json`)).json()) as Json;
    compatDocument = (await (await fetch(`${server.origin}/compat/v1/openapi.json`)).json()) as Json;
  } finally {
    await server.close();
  }
  schemas = createSchemaValidator(document);
});

/** The documented operation of an admin request: its path item's server is `/admin/v1`. */
function adminOperation(method: string, path: string): Operation | undefined {
  const relative = path.split('?', 1)[0]!.replace(/^\/admin\/v1/u, '');
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    const servers = item.servers as { url: string }[] | undefined;
    if (servers?.[0]?.url !== '/admin/v1') continue;
    if (new RegExp(`^${template.replace(/\{[^}]+\}/gu, '[^/]+')}$`, 'u').test(relative)) return item[method.toLowerCase()] as Operation | undefined;
  }
  return undefined;
}

function checkAgainstDocument(result: StepResult): void {
  if (!result.path.startsWith('/admin/v1/')) return;
  const operation = adminOperation(result.step.request.method, result.path);
  const documented = operation?.responses[String(result.status)]?.content?.['application/json']?.schema ?? { $ref: '#/components/schemas/ErrorEnvelope' };
  if (operation !== undefined) expect(operation.responses[String(result.status)], `${result.step.request.method} ${result.path}: status ${result.status} documented`).toBeDefined();
  expect(schemas.validate(documented, result.body), `${result.step.request.method} ${result.path} → ${result.status}`).toBeUndefined();
}

describe('admin API scenarios (test/admin-fixtures), over HTTP', { timeout: 60_000 }, () => {
  for (const scenario of loadScenarios()) {
    it(`${scenario.id}: ${scenario.description}`, async () => {
      const results = await replayScenario(scenario);
      for (const result of results) checkAgainstDocument(result);
    });
  }
});

describe('the admin API in the served OpenAPI document', () => {
  it('should be a valid OpenAPI 3.2 document whose schemas compile in strict mode', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe('3.2');
    expect(() => schemas.compileAll()).not.toThrow();
  });

  it('should name each mount as its own server: /v1, /compat/v1, and /admin/v1 for the admin paths', () => {
    expect(document.servers).toEqual([{ url: '/v1' }]);
    expect(compatDocument.servers).toEqual([{ url: '/compat/v1' }]);
    const adminServers = (paths: Json) => Object.values(paths as Record<string, { servers?: { url: string }[] }>).map((item) => item.servers?.[0]?.url ?? 'the document server');
    expect(adminServers(compatDocument.paths as Json)).toEqual(adminServers(document.paths as Json));
  });

  it('should list every admin path under its own server, with the admin token scheme', () => {
    const admin = Object.entries(document.paths as Record<string, { servers?: { url: string }[] }>).filter(([, item]) => item.servers?.[0]?.url === '/admin/v1');
    expect(admin.map(([path]) => path)).toEqual(['/organisations', '/organisations/{name}', '/keys', '/keys/{id}', '/keys/{id}/revoke', '/keys/{id}/rotate', '/usage', '/audit-log']);
    expect((document.components as { securitySchemes: Json }).securitySchemes.adminAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect((document.paths as Json)['/chat/completions']).toBeDefined();
  });

  it('should accept only what the admin API accepts: allowed_models from the served ids, an audit limit from 1 to 1000', () => {
    const ids = ['quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro'];
    for (const name of ['AdminCreateKeyRequest', 'AdminUpdateKeyRequest']) {
      const body = name === 'AdminCreateKeyRequest' ? { organisation: 'acme' } : {};
      expect(schemas.validate({ $ref: `#/components/schemas/${name}` }, { ...body, allowed_models: ids }), name).toBeUndefined();
      expect(schemas.validate({ $ref: `#/components/schemas/${name}` }, { ...body, allowed_models: ['quantum-ultra'] }), name).toBeDefined();
    }
    const audit = (document.paths as Record<string, { get: { parameters: { name: string; schema: unknown }[] } }>)['/audit-log']!.get;
    expect(audit.parameters.find((parameter) => parameter.name === 'limit')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 1000 });
  });

  it('should refuse what the admin API never sends, so the scenario checks are not vacuous', () => {
    const key = { $ref: '#/components/schemas/AdminApiKey' };
    expect(schemas.validate(key, { object: 'api_key', id: 'key_1', organisation: 'acme', kind: 'live', display: 'qc_live_…abcd', status: 'gone', require_signature: false, created_at: 1, expires_at: null, allowed_models: null, limits: {} })).toBeDefined();
    expect(schemas.validate({ $ref: '#/components/schemas/AdminCreateKeyRequest' }, { organisation: 'acme', colour: 'red' })).toBeDefined();
  });
});

describe('admin API usage', () => {
  it('should total exactly the tokens the chat responses reported, per day and model', async () => {
    const clock = { now: scenarioStart };
    const server = await startScenarioServer({}, clock);
    onTestFinished(() => server.close());
    const admin = (path: string, init: RequestInit = {}) => fetch(`${server.origin}/admin/v1${path}`, { ...init, headers: ops });
    await admin('/organisations', { method: 'POST', body: JSON.stringify({ name: 'acme' }) });
    const { secret } = (await (await admin('/keys', { method: 'POST', body: JSON.stringify({ organisation: 'acme' }) })).json()) as { secret: string };
    const chat = async (model: string, content: string) => {
      const response = await fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 24 }),
      });
      return ((await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    };
    const first = [await chat('quantum-lite', 'One.'), await chat('quantum-lite', 'Two, three and four.')];
    const flash = await chat('quantum-flash', 'Five.');
    clock.now += 86_400_000;
    const next = await chat('quantum-lite', 'Six.');
    const report = (await (await admin('/usage?organisation=acme')).json()) as { data: { day: string; model: string; prompt_tokens: number; completion_tokens: number; total_tokens: number }[] };
    const sum = (usages: { prompt_tokens: number; completion_tokens: number }[]) => ({
      prompt_tokens: usages.reduce((total, usage) => total + usage.prompt_tokens, 0),
      completion_tokens: usages.reduce((total, usage) => total + usage.completion_tokens, 0),
    });
    expect(report.data.map(({ day, model, prompt_tokens, completion_tokens, total_tokens }) => ({ day, model, prompt_tokens, completion_tokens, total_tokens }))).toEqual([
      { day: '2023-11-14', model: 'quantum-flash', ...sum([flash]), total_tokens: flash.prompt_tokens + flash.completion_tokens },
      { day: '2023-11-14', model: 'quantum-lite', ...sum(first), total_tokens: sum(first).prompt_tokens + sum(first).completion_tokens },
      { day: '2023-11-15', model: 'quantum-lite', ...sum([next]), total_tokens: next.prompt_tokens + next.completion_tokens },
    ]);
  });
});

afterAll(() => undefined);
