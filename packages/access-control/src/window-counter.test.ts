import { setFlagsFromString } from 'node:v8';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { createMemoryWindowCounter, unlimitedPoints } from './window-counter.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

describe('createMemoryWindowCounter', () => {
  it('should count points in the window and give them back while it is open', async () => {
    const counter = createMemoryWindowCounter(new RateLimiterMemory({ points: unlimitedPoints, duration: 60 }));
    const charge = await counter.add('acme', 5);
    expect(charge).toMatchObject({ total: 5, backend: 'memory' });
    expect(charge.resetsAt).toBeGreaterThan(Date.now());
    await charge.refund(2);
    expect((await counter.read('acme')).total).toBe(3);
  });

  it('should give every charge one hidden class, not one each (each request charges each of its limits)', async () => {
    const counter = createMemoryWindowCounter(new RateLimiterMemory({ points: unlimitedPoints, duration: 60 }));
    const charges: object[] = [];
    // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
    for (let index = 0; index < 40; index++) charges.push(await counter.add(`key-${index % 3}`, 1));
    expect(charges.slice(-30).filter((charge) => !sameHiddenClass(charge, charges.at(-1)!))).toHaveLength(0);
  });
});
