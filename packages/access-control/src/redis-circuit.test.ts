import { describe, expect, it, vi } from 'vitest';
import { createRedisCircuit } from './redis-circuit.js';

describe('createRedisCircuit', () => {
  it('should close when Redis answers a command sent outside the circuit, without waiting for its probe', () => {
    const changes: boolean[] = [];
    const ping = vi.fn(() => Promise.reject(new Error('still down')));
    const circuit = createRedisCircuit({ ping, timeoutMs: 50, probeIntervalMs: 60_000, onChange: (open) => changes.push(open) });
    circuit.trip(new Error('connection reset'));
    expect(circuit.open).toBe(true);
    circuit.answered();
    expect(circuit.open).toBe(false);
    expect(circuit.reason).toBeUndefined();
    expect(changes).toEqual([true, false]);
    // Closed already: a second answer changes nothing, and no probe ran.
    circuit.answered();
    expect(changes).toEqual([true, false]);
    expect(ping).not.toHaveBeenCalled();
    circuit.dispose();
  });

  it('should probe until Redis answers within the timeout, then close', async () => {
    vi.useFakeTimers();
    try {
      let answering = false;
      const ping = vi.fn(() => (answering ? Promise.resolve('PONG') : Promise.reject(new Error('down'))));
      const circuit = createRedisCircuit({ ping, timeoutMs: 50, probeIntervalMs: 250 });
      circuit.trip(new Error('down'));
      await vi.advanceTimersByTimeAsync(500);
      expect(ping).toHaveBeenCalledTimes(2);
      expect(circuit.open).toBe(true);
      answering = true;
      await vi.advanceTimersByTimeAsync(250);
      expect(circuit.open).toBe(false);
      await vi.advanceTimersByTimeAsync(1000);
      expect(ping).toHaveBeenCalledTimes(3);
      circuit.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
