import type { StreamProducer } from './stream-producer.js';

/**
 * The resumable runs this instance produces, and which of them run without a reader here. An
 * organisation has at most `maxDetachedPerOrganisation` runs without one: past it the oldest
 * is cancelled, so memory and engine time stay bounded whatever clients do (decisions §4.7).
 */
export class LocalRuns {
  readonly #maxDetached: number;
  #runs = new Map<string, StreamProducer>();
  /** Per owner, its detached runs in the order they lost their last reader. */
  readonly #detached = new Map<string, Set<StreamProducer>>();

  constructor(maxDetachedPerOrganisation: number) {
    this.#maxDetached = maxDetachedPerOrganisation;
  }

  add(producer: StreamProducer): void {
    this.#runs.set(producer.id, producer);
  }

  get(id: string): StreamProducer | undefined {
    return this.#runs.get(id);
  }

  get size(): number {
    return this.#runs.size;
  }

  /** A reader on this instance started following the run. */
  attach(producer: StreamProducer): void {
    producer.followers++;
    this.#detached.get(producer.meta.owner)?.delete(producer);
  }

  /** A reader on this instance stopped (its client left, or the stream ended). */
  release(producer: StreamProducer): void {
    producer.followers--;
    if (producer.followers > 0 || producer.ended) return;
    producer.endIfOverdue();
    if (producer.ended) return;
    const owner = producer.meta.owner;
    let detached = this.#detached.get(owner);
    if (detached === undefined) this.#detached.set(owner, (detached = new Set()));
    detached.add(producer);
    while (detached.size > this.#maxDetached) {
      const oldest = detached.values().next().value!;
      detached.delete(oldest);
      oldest.cancel();
    }
  }

  /** The run ended: it is no longer counted. */
  remove(producer: StreamProducer): void {
    this.#runs.delete(producer.id);
    // A copy, so that the map lives about as long as one run, as access-control's `renewedMap`
    // does for its churning collections. Why: V8 links a hash table it replaces (grown, shrunk,
    // or rid of deleted entries) to the next, uncleared; once this long-lived map's table is in
    // the old generation, every young-generation collection kept the runs it ever held since the
    // last full one, and what they reach (measured on the ready server's resumable streams:
    // 90 → 37 MiB promoted over 1,500 of them).
    this.#runs = new Map(this.#runs);
    const detached = this.#detached.get(producer.meta.owner);
    if (detached === undefined) return;
    detached.delete(producer);
    if (detached.size === 0) this.#detached.delete(producer.meta.owner);
  }
}
