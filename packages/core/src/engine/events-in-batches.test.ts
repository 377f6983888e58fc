import { describe, expect, it } from 'vitest';
import { eventsInBatches, hasReadyEvents } from './events-in-batches.js';

async function* batchesOf(batches: number[][], seen: number[][] = []): AsyncGenerator<number[]> {
  for (const batch of batches) {
    seen.push(batch);
    yield batch;
  }
}

async function collect(iterable: AsyncIterable<number>): Promise<number[]> {
  const events: number[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe('eventsInBatches', () => {
  it('should yield every event of every batch in order, empty batches skipped', async () => {
    const cases = [[], [[]], [[1]], [[1, 2, 3]], [[], [1], [], [], [2, 3], []], [[1], [2], [3, 4, 5, 6], [7]]];
    for (const batches of cases) expect(await collect(eventsInBatches(batchesOf(batches)))).toEqual(batches.flat());
  });

  it('should hand over the rest of a batch through takeReady, and ask for the next batch only once it is used up', async () => {
    const seen: number[][] = [];
    const events = eventsInBatches(batchesOf([[1, 2, 3], [4]], seen));
    expect(hasReadyEvents(events)).toBe(true);
    expect(events.takeReady()).toBeUndefined();
    expect(seen).toEqual([]);
    expect(await events.next()).toEqual({ done: false, value: 1 });
    expect([events.takeReady(), events.takeReady(), events.takeReady()]).toEqual([2, 3, undefined]);
    expect(seen).toEqual([[1, 2, 3]]);
    expect(await events.next()).toEqual({ done: false, value: 4 });
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it('should serve pulls made before the previous one settled in order, without losing a batch', async () => {
    const events = eventsInBatches(batchesOf([[1, 2], [3]]));
    const pulls = await Promise.all([events.next(), events.next(), events.next(), events.next()]);
    expect(pulls).toEqual([
      { done: false, value: 1 },
      { done: false, value: 2 },
      { done: false, value: 3 },
      { done: true, value: undefined },
    ]);
  });

  it('should end its source when returned part-way, and hold nothing of the batch after', async () => {
    let ended = false;
    async function* source(): AsyncGenerator<number[]> {
      try {
        yield [1, 2, 3];
        yield [4];
      } finally {
        ended = true;
      }
    }
    const events = eventsInBatches(source());
    await events.next();
    expect(await events.return!()).toEqual({ done: true, value: undefined });
    expect(ended).toBe(true);
    expect(events.takeReady()).toBeUndefined();
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it('should not start its source when returned before the first pull', async () => {
    let started = false;
    async function* source(): AsyncGenerator<number[]> {
      started = true;
      yield [1];
    }
    const events = eventsInBatches(source());
    await events.return!();
    expect(started).toBe(false);
  });

  it("should pass on its source's failure after the events before it", async () => {
    async function* source(): AsyncGenerator<number[]> {
      yield [1, 2];
      throw new Error('upstream broke');
    }
    const events = eventsInBatches(source());
    expect(await events.next()).toEqual({ done: false, value: 1 });
    expect(await events.next()).toEqual({ done: false, value: 2 });
    await expect(events.next()).rejects.toThrow('upstream broke');
  });
});
