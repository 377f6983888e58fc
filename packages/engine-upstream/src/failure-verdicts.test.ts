import { QuantumChatError } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from './circuit-breaker.js';
import { createDeploymentPool } from './deployment-pool.js';
import { FailureVerdicts, isReplicaWide } from './failure-verdicts.js';
import { UsualPromptSize } from './usual-prompt-size.js';

describe('a circuit breaker weighing failures', () => {
  it('should count a request content once, however often it fails, until the breaker closes again', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 2, cooldownMs: 1000 });
    for (let index = 0; index < 5; index++) breaker.failed(0, undefined, { fingerprint: 'same' });
    expect(breaker.state(0)).toBe('closed');
    breaker.failed(0, undefined, { fingerprint: 'other' });
    expect(breaker.state(0)).toBe('open');
  });

  it('should add up weights: four quarter failures make one', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 1000 });
    for (let index = 0; index < 3; index++) breaker.failed(0, undefined, { weight: 0.25 });
    expect(breaker.state(0)).toBe('closed');
    breaker.failed(0, undefined, { weight: 0.25 });
    expect(breaker.state(0)).toBe('open');
  });
});

describe('FailureVerdicts', () => {
  const deployments = [{ weight: 1 }, { weight: 1 }];
  const failing = new QuantumChatError('upstream_error', 'The model server failed (HTTP 500)');

  function poolAndLeases() {
    const pool = createDeploymentPool(deployments, { breaker: { failureThreshold: 1 }, now: () => 0 });
    const a = pool.acquire(new Set())!;
    const b = pool.acquire(new Set([a.deployment]))!;
    return { pool, a, b };
  }

  it('should count nothing when the failure followed the request to two deployments', () => {
    const { pool, a, b } = poolAndLeases();
    const verdicts = new FailureVerdicts();
    verdicts.failed(a, failing, 500, undefined, 1);
    verdicts.failed(b, failing, 500, undefined, 1);
    expect(pool.status(deployments[0]!)).toEqual({ inFlight: 0, state: 'closed' });
    verdicts.settle(false, () => 'digest');
    expect(pool.status(deployments[0]!).state).toBe('closed');
    expect(pool.status(deployments[1]!).state).toBe('closed');
  });

  it('should count a failure another deployment proved to be the deployment\'s, and a lone one', () => {
    const proven = poolAndLeases();
    const verdicts = new FailureVerdicts();
    verdicts.failed(proven.a, failing, 500, undefined, 1);
    proven.b.succeeded();
    verdicts.settle(true, () => 'digest');
    expect(proven.pool.status(deployments[0]!).state).toBe('open');
    const lone = poolAndLeases();
    const alone = new FailureVerdicts();
    alone.failed(lone.a, failing, 500, undefined, 1);
    lone.b.released();
    alone.settle(false, () => 'digest');
    expect(lone.pool.status(deployments[0]!).state).toBe('open');
  });

  it('should count overload and an unreachable server at once', () => {
    expect(isReplicaWide(new QuantumChatError('engine_unavailable', 'unreachable'), undefined)).toBe(true);
    expect(isReplicaWide(failing, 429)).toBe(true);
    expect(isReplicaWide(failing, 500)).toBe(false);
    expect(isReplicaWide(new QuantumChatError('upstream_timeout', 'no first token'), undefined)).toBe(false);
    const { pool, a, b } = poolAndLeases();
    new FailureVerdicts().failed(a, new QuantumChatError('engine_unavailable', 'unreachable'), undefined, undefined, 1);
    b.released();
    expect(pool.status(deployments[0]!).state).toBe('open');
  });
});

describe('UsualPromptSize', () => {
  it('should weigh a timeout 1 up to four times the usual prompt, less beyond, never under a quarter', () => {
    const usual = new UsualPromptSize();
    expect(usual.timeoutWeight(1_000_000)).toBe(1);
    usual.observe(100);
    expect(usual.timeoutWeight(400)).toBe(1);
    expect(usual.timeoutWeight(800)).toBe(0.5);
    expect(usual.timeoutWeight(100_000)).toBe(0.25);
  });
});
