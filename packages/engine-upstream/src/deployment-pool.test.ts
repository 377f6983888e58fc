import { describe, expect, it } from 'vitest';
import { createDeploymentPool, type DeploymentLease, type PooledDeployment } from './deployment-pool.js';

interface Named extends PooledDeployment {
  name: string;
}
const none = new Set<never>();
const named = (name: string, extra: PooledDeployment = {}): Named => ({ name, ...extra });

describe('createDeploymentPool', () => {
  it('should send each request to the deployment with the fewest in flight', () => {
    const a = named('a');
    const b = named('b');
    const c = named('c');
    const pool = createDeploymentPool([a, b, c]);
    const held: DeploymentLease<Named>[] = [];
    // b is slow: its requests stay in flight; a and c finish theirs at once.
    const slow = pool.acquire(none)!;
    held.push(slow);
    const counts = new Map<string, number>();
    for (let index = 0; index < 30; index++) {
      const lease = pool.acquire(none)!;
      counts.set(lease.deployment.name, (counts.get(lease.deployment.name) ?? 0) + 1);
      if (lease.deployment === slow.deployment) held.push(lease);
      else lease.succeeded();
    }
    expect(counts.get(slow.deployment.name) ?? 0).toBe(0);
    expect(pool.status(slow.deployment).inFlight).toBe(1);
  });

  it('should share by weight at equal busyness and skip full deployments', () => {
    const heavy = named('heavy', { weight: 2 });
    const light = named('light', { weight: 1, maxConcurrency: 1 });
    const pool = createDeploymentPool([light, heavy]);
    const leases = [pool.acquire(none)!, pool.acquire(none)!, pool.acquire(none)!, pool.acquire(none)!];
    expect(leases.map((lease) => lease.deployment.name)).toEqual(['heavy', 'heavy', 'light', 'heavy']);
    expect(pool.status(light).inFlight).toBe(1);
  });

  it('should take turns between idle deployments', () => {
    const pool = createDeploymentPool([named('a'), named('b'), named('c')]);
    const names: string[] = [];
    for (let index = 0; index < 6; index++) {
      const lease = pool.acquire(none)!;
      names.push(lease.deployment.name);
      lease.succeeded();
    }
    expect(new Set(names.slice(0, 3)).size).toBe(3);
  });

  it('should skip deployments already tried and those taken out, then probe them back in', () => {
    let now = 0;
    const a = named('a');
    const b = named('b');
    const pool = createDeploymentPool([a, b], { breaker: { failureThreshold: 2, cooldownMs: 1000 }, now: () => now });
    expect(pool.acquire(new Set([a]))!.deployment).toBe(b);
    for (let failure = 0; failure < 2; failure++) {
      const lease = pool.acquire(new Set([b]))!;
      expect(lease.deployment).toBe(a);
      lease.failed();
    }
    expect(pool.status(a).state).toBe('open');
    expect(pool.acquire(new Set([b]))).toBeUndefined();
    expect(pool.nextReopening()).toBe(1000);
    now = 1000;
    const probe = pool.acquire(new Set([b]))!;
    expect(probe.deployment).toBe(a);
    expect(pool.acquire(new Set([b]))).toBeUndefined();
    probe.succeeded();
    expect(pool.status(a)).toEqual({ inFlight: 0, state: 'closed' });
  });

  it('should always offer a single deployment (no breaker: there is nowhere else to go)', () => {
    const only = named('only');
    const pool = createDeploymentPool([only]);
    for (let failure = 0; failure < 10; failure++) pool.acquire(none)!.failed(5000);
    expect(pool.acquire(none)?.deployment).toBe(only);
  });

  it('should count a lease once however it ends', () => {
    const a = named('a');
    const pool = createDeploymentPool([a]);
    const lease = pool.acquire(none)!;
    lease.failed();
    lease.released();
    lease.succeeded();
    expect(pool.status(a).inFlight).toBe(0);
  });
});
