import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/hash-api-key.js';
import { issueApiKey } from '../src/issue-api-key.js';
import type { KeyStore, UsageRecord } from '../src/key-store.js';

function usage(overrides: Partial<UsageRecord>): UsageRecord {
  return {
    requestId: 'req_1',
    keyId: 'key_1',
    organisation: 'acme',
    model: 'quantum-lite',
    promptTokens: 10,
    completionTokens: 5,
    status: 200,
    interrupted: false,
    timestamp: 1_000,
    ...overrides,
  };
}

/** The behaviour every `KeyStore` shares; each store runs it with its own factory. */
export function describeKeyStoreContract(name: string, open: () => Promise<KeyStore>): void {
  describe(`${name} (KeyStore contract)`, () => {
    it('should create, read and list organisations', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      await store.createOrganisation({ name: 'beta', plan: 'elite', limits: { tokensPerDay: 5000 } });
      expect(await store.getOrganisation('acme')).toMatchObject({ name: 'acme', plan: 'free', limits: {} });
      expect((await store.getOrganisation('beta'))?.limits).toEqual({ tokensPerDay: 5000 });
      expect(await store.getOrganisation('nobody')).toBeUndefined();
      expect((await store.listOrganisations()).map((organisation) => organisation.name).sort()).toEqual(['acme', 'beta']);
      await expect(store.createOrganisation({ name: 'acme', plan: 'elite' })).rejects.toThrow();
      await store.close();
    });

    it('should change plans, merge limit overrides (null lifts a limit) and reset them', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free', limits: { requestsPerMinute: 5 } });
      await store.updateOrganisation('acme', { limits: { tokensPerMinute: 700, tokensPerDay: null } });
      const updated = await store.updateOrganisation('acme', { plan: 'elite' });
      expect(updated).toMatchObject({ plan: 'elite', limits: { requestsPerMinute: 5, tokensPerMinute: 700, tokensPerDay: null } });
      const reset = await store.updateOrganisation('acme', { resetLimits: ['requestsPerMinute', 'tokensPerDay'] });
      expect(reset.limits).toEqual({ tokensPerMinute: 700 });
      await expect(store.updateOrganisation('nobody', { plan: 'free' })).rejects.toThrow(/nobody/);
      await store.close();
    });

    it('should find a key by its SHA-256 only, with its organisation', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { key, record } = await issueApiKey(store, { organisation: 'acme', kind: 'test', requireSignature: true });
      expect(record).toMatchObject({ organisation: 'acme', kind: 'test', prefix: 'qc_test_', last4: key.slice(-4), requireSignature: true, revoked: false });
      expect(record.hash).toBe(hashApiKey(key));
      expect(JSON.stringify(record)).not.toContain(key);
      const found = await store.findKeyByHash(hashApiKey(key));
      expect(found?.key.id).toBe(record.id);
      expect(found?.organisation).toMatchObject({ name: 'acme', plan: 'free' });
      expect(await store.findKeyByHash(hashApiKey(`${key}x`))).toBeUndefined();
      await store.close();
    });

    it('should refuse a key for an unknown organisation', async () => {
      const store = await open();
      await expect(issueApiKey(store, { organisation: 'ghost', kind: 'live' })).rejects.toThrow(/ghost/);
      await store.close();
    });

    it('should list keys per organisation and revoke them', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      await store.createOrganisation({ name: 'beta', plan: 'free' });
      const first = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      await issueApiKey(store, { organisation: 'beta', kind: 'test' });
      expect(await store.listKeys()).toHaveLength(2);
      expect((await store.listKeys({ organisation: 'acme' })).map((key) => key.id)).toEqual([first.record.id]);
      expect(await store.revokeKey(first.record.id)).toBe(true);
      expect(await store.revokeKey('key_missing')).toBe(false);
      expect((await store.findKeyByHash(hashApiKey(first.key)))?.key.revoked).toBe(true);
      await store.close();
    });

    it('should record usage and total it per key and model, since a time', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { record } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      await store.recordUsage(usage({ keyId: record.id, timestamp: 1_000 }));
      await store.recordUsage(usage({ keyId: record.id, requestId: 'req_2', status: 502, interrupted: true, completionTokens: 2, timestamp: 2_000 }));
      await store.recordUsage(usage({ keyId: record.id, requestId: 'req_3', model: 'quantum-pro', timestamp: 3_000 }));
      await store.recordUsage(usage({ keyId: 'key_other', organisation: 'beta', timestamp: 3_000 }));
      const summary = await store.summariseUsage({ organisation: 'acme' });
      expect(summary).toEqual([
        { keyId: record.id, keyDisplay: `qc_live_…${record.last4}`, kind: 'live', model: 'quantum-lite', requests: 2, promptTokens: 20, completionTokens: 7, errors: 1, interrupted: 1 },
        { keyId: record.id, keyDisplay: `qc_live_…${record.last4}`, kind: 'live', model: 'quantum-pro', requests: 1, promptTokens: 10, completionTokens: 5, errors: 0, interrupted: 0 },
      ]);
      expect((await store.summariseUsage({ organisation: 'acme', since: 2_500 })).map((row) => row.model)).toEqual(['quantum-pro']);
      expect((await store.listUsage({ organisation: 'acme' })).map((row) => row.requestId)).toEqual(['req_1', 'req_2', 'req_3']);
      await store.close();
    });
  });
}
