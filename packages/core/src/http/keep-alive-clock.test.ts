import { describe, expect, it } from 'vitest';
import { createKeepAliveClock, keepAliveTick } from './keep-alive-clock.js';

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('createKeepAliveClock', () => {
  it('should settle with the event when the engine answers within the interval', async () => {
    const clock = createKeepAliveClock(200);
    for (let index = 0; index < 100; index++) expect(await clock.wait(Promise.resolve(index))).toBe(index);
    clock.stop();
  });

  it('should tick once per silent interval, then settle with the late event', async () => {
    const clock = createKeepAliveClock(30);
    const next = later('late', 100);
    const results: unknown[] = [];
    for (let result = await clock.wait(next); ; result = await clock.wait(next)) {
      results.push(result);
      if (result !== keepAliveTick) break;
    }
    clock.stop();
    expect(results.at(-1)).toBe('late');
    expect(results.filter((result) => result === keepAliveTick).length).toBeGreaterThanOrEqual(2);
  });

  it('should pass a rejection through', async () => {
    const clock = createKeepAliveClock(1000);
    await expect(clock.wait(Promise.reject(new Error('engine failed')))).rejects.toThrow('engine failed');
    clock.stop();
  });

  it('should never tick with the interval off', async () => {
    const clock = createKeepAliveClock(0);
    expect(await clock.wait(later('value', 20))).toBe('value');
  });
});
