import { createAccessControl, createMemoryKeyStore, issueApiKey } from '@quantum-chat/access-control';
import { describe, expect, it } from 'vitest';
import { cacheKeyLookups } from './key-lookup-cache.js';

async function setUp() {
  const inner = createMemoryKeyStore();
  await inner.createOrganisation({ name: 'acme', plan: 'free' });
  let time = 1_000_000;
  const clock = { now: () => time, advance: (ms: number) => (time += ms) };
  let lookups = 0;
  const counted = { ...inner, findKeyByHash: (hash: string) => (lookups++, inner.findKeyByHash(hash)) };
  const store = cacheKeyLookups(counted, { ttlMs: 1000, maxEntries: 3, now: clock.now });
  return { inner, store, clock, lookups: () => lookups };
}

describe('cacheKeyLookups', () => {
  it('should answer a key from memory within the TTL and ask the store again after it', async () => {
    const { inner, store, clock, lookups } = await setUp();
    const record = await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h1', prefix: 'qc_live_', last4: 'abcd' });
    expect((await store.findKeyByHash('h1'))?.key.id).toBe(record.id);
    clock.advance(999);
    await store.findKeyByHash('h1');
    expect(lookups()).toBe(1);
    clock.advance(1);
    await store.findKeyByHash('h1');
    expect(lookups()).toBe(2);
  });

  it('should see a key revoked by another process (the CLI) within 1 s', async () => {
    const { inner, store, clock } = await setUp();
    const record = await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h1', prefix: 'qc_live_', last4: 'abcd' });
    expect((await store.findKeyByHash('h1'))?.key.revoked).toBe(false);
    await inner.revokeKey(record.id);
    clock.advance(1000);
    expect((await store.findKeyByHash('h1'))?.key.revoked).toBe(true);
  });

  it('should see a revocation through itself, or an organisation change, at once', async () => {
    const { inner, store } = await setUp();
    const record = await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h1', prefix: 'qc_live_', last4: 'abcd' });
    await store.findKeyByHash('h1');
    await store.updateOrganisation('acme', { plan: 'elite' });
    expect((await store.findKeyByHash('h1'))?.organisation.plan).toBe('elite');
    expect(await store.revokeKey(record.id)).toBe(true);
    expect((await store.findKeyByHash('h1'))?.key.revoked).toBe(true);
  });

  it('should not hold unknown keys, so a key created later works at once', async () => {
    const { inner, store } = await setUp();
    expect(await store.findKeyByHash('h2')).toBeUndefined();
    await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h2', prefix: 'qc_live_', last4: 'abcd' });
    expect(await store.findKeyByHash('h2')).toBeDefined();
  });

  it('should hold at most maxEntries keys, dropping the oldest', async () => {
    const { inner, store, lookups } = await setUp();
    for (const hash of ['a', 'b', 'c', 'd']) await inner.createKey({ organisation: 'acme', kind: 'live', hash, prefix: 'qc_live_', last4: 'abcd' });
    for (const hash of ['a', 'b', 'c', 'd']) await store.findKeyByHash(hash);
    expect(lookups()).toBe(4);
    await store.findKeyByHash('d');
    expect(lookups()).toBe(4);
    await store.findKeyByHash('a');
    expect(lookups()).toBe(5);
  });

  it('should make a revoked key fail authentication within 1 s through the access control', async () => {
    const inner = createMemoryKeyStore();
    await inner.createOrganisation({ name: 'acme', plan: 'free' });
    const { key, record } = await issueApiKey(inner, { organisation: 'acme', kind: 'live' });
    let time = 0;
    const accessControl = createAccessControl({ store: cacheKeyLookups(inner, { now: () => time }) });
    const presented = { key, display: 'qc_live_…' };
    await expect(accessControl.authenticate(presented as never)).resolves.toMatchObject({ organisationId: 'acme' });
    await inner.revokeKey(record.id);
    time += 1000;
    await expect(accessControl.authenticate(presented as never)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });
});
