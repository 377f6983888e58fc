// `GET /v1/models` with a key says what that key may use: its plan and its own allow-list
// (decisions §6), over real HTTP against the ready server.
import { describe, expect, it, onTestFinished } from 'vitest';
import { adminTokens, scenarioStart, startScenarioServer } from './admin-fixture-runner.js';

const ops = { authorization: `Bearer ${adminTokens[0]!.token}`, 'content-type': 'application/json' };

type ModelObject = { id: string; available?: boolean };

describe('GET /v1/models with a key limited to some models', () => {
  it('should say available: false for a model the key\'s allowed_models leaves out, as its chat request is refused', async () => {
    const server = await startScenarioServer({}, { now: scenarioStart });
    onTestFinished(() => server.close());
    const admin = (path: string, body: unknown) => fetch(`${server.origin}/admin/v1${path}`, { method: 'POST', headers: ops, body: JSON.stringify(body) });
    expect((await admin('/organisations', { name: 'acme', plan: 'elite' })).status).toBe(201);
    const created = (await (await admin('/keys', { organisation: 'acme', allowed_models: ['quantum-lite', 'quantum-pro'] })).json()) as { secret: string };
    const open = (await (await admin('/keys', { organisation: 'acme' })).json()) as { secret: string };
    const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });

    const listed = (await (await fetch(`${server.origin}/v1/models`, { headers: auth(created.secret) })).json()) as { data: ModelObject[] };
    expect(Object.fromEntries(listed.data.map((model) => [model.id, model.available]))).toEqual({
      'quantum-lite': true,
      'quantum-flash': false,
      'quantum-pro': true,
      'quantum-reasoner': false,
    });
    const one = (await (await fetch(`${server.origin}/compat/v1/models/quantum-flash`, { headers: auth(created.secret) })).json()) as ModelObject;
    expect(one).toMatchObject({ id: 'quantum-flash', available: false });
    const refused = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth(created.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Hi.' }], max_tokens: 8 }),
    });
    expect(refused.status).toBe(403);

    // A key without a list of its own: every model its (elite) plan allows.
    const all = (await (await fetch(`${server.origin}/v1/models`, { headers: auth(open.secret) })).json()) as { data: ModelObject[] };
    expect(all.data.map((model) => model.available)).toEqual([true, true, true, true]);
  });
});
