// Where audit rows come from: the first start's organisation and key are audited like any
// other change, and each row names our request id, the client's own kept apart; over real
// HTTP against the ready server.
import { describe, expect, it, onTestFinished } from 'vitest';
import { adminTokens } from './admin-fixture-runner.js';
import { startInProcessServer } from './in-process-server.js';

type AuditEntry = { actor: string; action: string; subject: string | null; details: Record<string, unknown>; request_id: string | null; client_request_id: string | null };

const ops = { authorization: `Bearer ${adminTokens[0]!.token}` };

async function auditLog(origin: string): Promise<AuditEntry[]> {
  const response = await fetch(`${origin}/admin/v1/audit-log`, { headers: ops });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: AuditEntry[] }).data;
}

describe('the audit log', () => {
  it('should hold the first start\'s default organisation and test key, made by the server itself', async () => {
    const server = await startInProcessServer({ adminTokens });
    onTestFinished(() => server.close());
    expect(server.testKey).toMatch(/^qc_test_/);
    const keys = (await (await fetch(`${server.origin}/admin/v1/keys`, { headers: ops })).json()) as { data: { id: string; display: string }[] };
    expect(keys.data).toHaveLength(1);
    const key = keys.data[0]!;

    const entries = await auditLog(server.origin);
    expect(entries.map(({ actor, action, subject, details, request_id, client_request_id }) => ({ actor, action, subject, details, request_id, client_request_id }))).toEqual([
      {
        actor: 'server:first-start',
        action: 'key.create',
        subject: key.id,
        details: { organisation: 'default', kind: 'test', display: key.display, require_signature: false, expires_at: null, allowed_models: null, limits: {} },
        request_id: null,
        client_request_id: null,
      },
      { actor: 'server:first-start', action: 'organisation.create', subject: 'default', details: { plan: 'elite' }, request_id: null, client_request_id: null },
    ]);
    expect(JSON.stringify(entries)).not.toContain(server.testKey);

    // A second start on the same store seeds nothing, so audits nothing.
    expect((await server.app.prepareStarterKeys()).createdKey).toBeUndefined();
    expect(await auditLog(server.origin)).toHaveLength(2);
  });

  it('should name our request id (the response\'s x-request-id) and keep the client\'s own apart', async () => {
    const server = await startInProcessServer({ adminTokens });
    onTestFinished(() => server.close());
    const create = (name: string, headers: Record<string, string>) =>
      fetch(`${server.origin}/admin/v1/organisations`, { method: 'POST', headers: { ...ops, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name }) });

    const chosen = await create('acme', { 'x-request-id': 'req_forged-by-the-client' });
    expect(chosen.status).toBe(201);
    const ours = chosen.headers.get('x-request-id')!;
    expect(ours).not.toBe('req_forged-by-the-client');
    const unsent = await create('beta', {});
    const oursToo = unsent.headers.get('x-request-id')!;
    // Whatever the client sends, it is kept as it came, never as our id (bounded, not parsed).
    const odd = await create('gamma', { 'x-request-id': `${ours} ${'x'.repeat(300)}` });

    const entries = await auditLog(server.origin);
    const byOrganisation = Object.fromEntries(entries.filter((entry) => entry.action === 'organisation.create').map((entry) => [entry.subject, entry]));
    expect(byOrganisation.acme).toMatchObject({ request_id: ours, client_request_id: 'req_forged-by-the-client' });
    expect(byOrganisation.beta).toMatchObject({ request_id: oursToo, client_request_id: null });
    expect(byOrganisation.gamma).toMatchObject({ request_id: odd.headers.get('x-request-id'), client_request_id: `${ours} ${'x'.repeat(300)}`.slice(0, 128) });
    expect(new Set([ours, oursToo, odd.headers.get('x-request-id')]).size).toBe(3);
  });
});
