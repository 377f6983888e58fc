import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from './circuit-breaker.js';

describe('createCircuitBreaker', () => {
  it('should open after the threshold of failures in a row, and not before', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 3, cooldownMs: 1000 });
    breaker.failed(0);
    breaker.failed(0);
    expect(breaker.state(0)).toBe('closed');
    breaker.succeeded();
    breaker.failed(0);
    breaker.failed(0);
    expect(breaker.allows(0)).toBe(true);
    breaker.failed(10);
    expect(breaker.state(10)).toBe('open');
    expect(breaker.allows(500)).toBe(false);
    expect(breaker.reopensAt()).toBe(1010);
  });

  it('should let one probe through after the cooldown, and close when it succeeds', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 1000 });
    breaker.failed(0);
    expect(breaker.state(1000)).toBe('half-open');
    expect(breaker.allows(1000)).toBe(true);
    breaker.started(1000);
    expect(breaker.allows(1001)).toBe(false);
    breaker.succeeded();
    expect(breaker.state(1002)).toBe('closed');
    expect(breaker.allows(1002)).toBe(true);
  });

  it('should stay out twice as long after each failed probe, up to the cap', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 1000, maxCooldownMs: 3000 });
    breaker.failed(0);
    breaker.started(1000);
    breaker.failed(1000);
    expect(breaker.reopensAt()).toBe(3000);
    breaker.started(3000);
    breaker.failed(3000);
    expect(breaker.reopensAt()).toBe(6000);
    breaker.started(6000);
    breaker.succeeded();
    breaker.failed(7000);
    expect(breaker.reopensAt()).toBe(8000);
  });

  it('should honour retry-after below the threshold', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 5, cooldownMs: 100 });
    breaker.failed(0, 2500);
    expect(breaker.state(2000)).toBe('open');
    expect(breaker.state(2500)).toBe('half-open');
  });

  it('should let the next request probe when a probe ended without a verdict', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 10 });
    breaker.failed(0);
    breaker.started(10);
    breaker.released();
    expect(breaker.allows(11)).toBe(true);
  });
});
