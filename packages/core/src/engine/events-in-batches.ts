/**
 * What an engine's event iterator may also offer: the next event it already holds, handed over
 * at once, or `undefined` when the next one has to be waited for (`next()` then). An engine
 * whose events come in bursts (an upstream read brings twenty chunks) lets the core take a
 * whole burst after one asynchronous step, and write its frames as one.
 */
export interface ReadyEvents<Event> {
  takeReady(): Event | undefined;
}

/** Whether an engine's iterator hands over the events it already holds (see `eventsInBatches`). */
export function hasReadyEvents<Event>(iterator: AsyncIterator<Event>): iterator is AsyncIterator<Event> & ReadyEvents<Event> {
  return typeof (iterator as Partial<ReadyEvents<Event>>).takeReady === 'function';
}

const noEvents: readonly never[] = [];
const ended: IteratorResult<never, undefined> = { done: true, value: undefined };

/**
 * An engine's events from batches of them: what `generate` returns when the engine gets its
 * events in bursts. Iterated as usual it yields one event at a time; the core also takes the
 * rest of a batch through `takeReady` without a promise each (with a generator per event, every
 * event cost the generator's step and the core's own: the largest part of a relayed stream's
 * per-chunk work). Batches are asked for one at a time, once the previous one is used up, so
 * an engine still waits for its consumer between them.
 *
 * @example
 * generate(request, context) {
 *   return eventsInBatches(readMyRuntime(request, context)); // an async generator of ChatEngineEvent[]
 * }
 */
export function eventsInBatches<Event>(batches: AsyncIterable<readonly Event[]>): AsyncIterableIterator<Event> & ReadyEvents<Event> {
  return new BatchedEvents(batches);
}

class BatchedEvents<Event> implements AsyncIterableIterator<Event>, ReadyEvents<Event> {
  readonly #batches: AsyncIterable<readonly Event[]>;
  #iterator: AsyncIterator<readonly Event[]> | undefined = undefined;
  #batch: readonly Event[] = noEvents;
  #index = 0;
  /** A `next()` waiting for a batch: a second one waits for it rather than asking for another batch beside it. */
  #waiting: Promise<IteratorResult<Event>> | undefined = undefined;

  constructor(batches: AsyncIterable<readonly Event[]>) {
    this.#batches = batches;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  takeReady(): Event | undefined {
    if (this.#index >= this.#batch.length) return undefined;
    return this.#batch[this.#index++];
  }

  next(): Promise<IteratorResult<Event>> {
    if (this.#waiting !== undefined) return this.#waiting.then(this.#nextAfter, this.#nextAfter);
    const ready = this.takeReady();
    if (ready !== undefined) return Promise.resolve({ done: false, value: ready });
    const waiting = this.#source()
      .next()
      .then(this.#onBatch, this.#onFailure);
    this.#waiting = waiting;
    return waiting;
  }

  return(value?: unknown): Promise<IteratorResult<Event>> {
    this.#batch = noEvents;
    this.#index = 0;
    // Never started: nothing to end (as a generator returned before its first step).
    if (this.#iterator?.return === undefined) return Promise.resolve(ended);
    return this.#iterator.return(value).then(() => ended);
  }

  throw(error?: unknown): Promise<IteratorResult<Event>> {
    this.#batch = noEvents;
    this.#index = 0;
    if (this.#iterator?.throw === undefined) return Promise.reject(error);
    return this.#iterator.throw(error).then(() => ended);
  }

  /** Made on the first `next()`: the engine's work starts when its events are first asked for. */
  #source(): AsyncIterator<readonly Event[]> {
    return (this.#iterator ??= this.#batches[Symbol.asyncIterator]());
  }

  readonly #nextAfter = (): Promise<IteratorResult<Event>> => this.next();

  readonly #onBatch = (step: IteratorResult<readonly Event[]>): IteratorResult<Event> | Promise<IteratorResult<Event>> => {
    this.#waiting = undefined;
    if (step.done === true) return ended;
    this.#batch = step.value;
    this.#index = 0;
    const first = this.takeReady();
    // An empty batch: the next one.
    return first === undefined ? this.next() : { done: false, value: first };
  };

  readonly #onFailure = (error: unknown): never => {
    this.#waiting = undefined;
    throw error;
  };
}
