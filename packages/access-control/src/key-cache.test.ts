import { describe, expect, it } from 'vitest';
import { createFlakyStore } from '../test/flaky-store.js';
import { createKeyCache } from './key-cache.js';
import { createMemoryStore } from './memory-store/index.js';

async function setUp() {
  const inner = createMemoryStore();
  await inner.createOrganisation({ name: 'acme', plan: 'free' });
  await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h1', prefix: 'qc_live_', last4: 'abcd' });
  await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h2', prefix: 'qc_live_', last4: 'efgh' });
  const flaky = createFlakyStore(inner);
  let time = 1_000_000;
  const clock = { now: () => time, advance: (ms: number) => (time += ms) };
  return { inner, flaky, clock };
}

describe('createKeyCache', () => {
  it('should answer a key from memory within the TTL and ask the store again after it', async () => {
    const { flaky, clock } = await setUp();
    const cache = createKeyCache({ store: flaky.store, now: clock.now });
    await cache.lookup('h1');
    clock.advance(999);
    await cache.lookup('h1');
    expect(flaky.calls.findKeyByHash).toBe(1);
    clock.advance(1);
    await cache.lookup('h1');
    expect(flaky.calls.findKeyByHash).toBe(2);
    cache.dispose();
  });

  it('should drop a key the store says was revoked, at once', async () => {
    const { inner, flaky, clock } = await setUp();
    const cache = createKeyCache({ store: flaky.store, now: clock.now });
    expect((await cache.lookup('h1'))?.key.revoked).toBe(false);
    await inner.revokeKey((await inner.findKeyByHash('h1'))!.key.id);
    expect((await cache.lookup('h1'))?.key.revoked).toBe(true);
    await inner.updateOrganisation('acme', { plan: 'elite' });
    expect((await cache.lookup('h1'))?.organisation.plan).toBe('elite');
    cache.dispose();
  });

  it('should keep cached keys working while the store is down, and answer 503 store_unavailable for others', async () => {
    const { flaky, clock } = await setUp();
    const changes: boolean[] = [];
    const cache = createKeyCache({ store: flaky.store, now: clock.now, onStateChange: (available) => changes.push(available) });
    await cache.lookup('h1');
    flaky.set('down');
    clock.advance(5000);
    expect((await cache.lookup('h1'))?.key.hash).toBe('h1');
    const error = await cache.lookup('h2').catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'store_unavailable', status: 503, headers: { 'retry-after': '1' } });
    expect(changes).toEqual([false]);
    cache.dispose();
  });

  it('should give up on a store that does not answer within the timeout', async () => {
    const { flaky } = await setUp();
    const cache = createKeyCache({ store: flaky.store, timeoutMs: 30, ttlMs: 0 });
    await cache.lookup('h1');
    flaky.set('hung');
    expect((await cache.lookup('h1'))?.key.hash).toBe('h1');
    await expect(cache.lookup('h2')).rejects.toMatchObject({ code: 'store_unavailable' });
    cache.dispose();
  });

  it('should not hold unknown keys, so a key created later works at once', async () => {
    const { inner, flaky } = await setUp();
    const cache = createKeyCache({ store: flaky.store });
    expect(await cache.lookup('h3')).toBeUndefined();
    await inner.createKey({ organisation: 'acme', kind: 'live', hash: 'h3', prefix: 'qc_live_', last4: 'ijkl' });
    expect(await cache.lookup('h3')).toBeDefined();
    cache.dispose();
  });
});
