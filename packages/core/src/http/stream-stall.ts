const stalledMarker = Symbol.for('quantum-chat.stream-stalled');

/**
 * Why a stream was given up: its consumer stopped pulling frames (the client stopped reading
 * and the socket is full). It never crosses the wire; the host closes the connection instead,
 * because a client that does not read cannot be told anything.
 */
class StreamStalledError extends Error {
  readonly [stalledMarker] = true;
  constructor(timeoutMs: number) {
    super(`The client read nothing for ${timeoutMs} ms; the stream was ended.`);
    this.name = 'StreamStalledError';
  }
}

/**
 * True for the error a stalled stream's iterator throws (from any copy of the core).
 * @internal
 */
export function isStreamStalledError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[stalledMarker] === true;
}

type StallListener = (error: Error) => void;
const stallListeners = new WeakMap<object, Set<StallListener>>();

/**
 * Calls `listener` once if the core gives up on a stream because its consumer stalled past
 * the handler's `stallTimeoutMs`; by then the engine is aborted and the request settled. A
 * host whose writer waits on a full socket cannot notice by itself, so it closes the
 * connection here. Returns a function that removes the listener (a no-op for iterables the
 * core did not make).
 *
 * @example
 * const body = Readable.from(response.events);
 * onStreamStalled(response.events, (error) => body.destroy(error));
 * @internal
 */
export function onStreamStalled(events: AsyncIterable<string>, listener: StallListener): () => void {
  const listeners = stallListeners.get(events);
  if (listeners === undefined) return () => undefined;
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export interface StreamGuardHooks {
  /** The consumer stalled: abort the engine and settle the request. */
  onStalled(error: Error): void;
  /** The stream ended, however it ended (runs once). */
  onEnded(): void;
}

/**
 * Wraps a stream's frames. It gives up on the stream when a delivered frame is left that long
 * without the next pull (`stallTimeoutMs`, ≤ 0 for never): `onStalled`, then the listeners of
 * `onStreamStalled`, and later pulls throw a `StreamStalledError`. It also runs `onEnded` on
 * every end, including a `return()` before the first pull, which would skip a generator's
 * `finally`. One lazy timer per stream, not one per frame: it re-arms itself for the time left.
 *
 * @internal
 */
export function guardStream(frames: AsyncGenerator<string>, stallTimeoutMs: number, hooks: StreamGuardHooks): AsyncIterableIterator<string> {
  const listeners = new Set<StallListener>();
  let ended = false;
  let stalled: Error | undefined;
  let pulling = false;
  let idleSince = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const end = () => {
    if (ended) return;
    ended = true;
    if (timer !== undefined) clearTimeout(timer);
    hooks.onEnded();
  };
  const check = () => {
    timer = undefined;
    if (ended) return;
    const idle = Date.now() - idleSince;
    if (pulling || idle < stallTimeoutMs) {
      timer = setTimeout(check, pulling ? stallTimeoutMs : stallTimeoutMs - idle);
      return;
    }
    stalled = new StreamStalledError(stallTimeoutMs);
    hooks.onStalled(stalled);
    end();
    void frames.return(undefined).catch(() => undefined);
    for (const listener of listeners) {
      try {
        listener(stalled);
      } catch {
        // One host listener failing must not keep the others from closing the connection.
      }
    }
  };
  if (stallTimeoutMs > 0 && stallTimeoutMs < Number.POSITIVE_INFINITY) timer = setTimeout(check, stallTimeoutMs);

  const iterator: AsyncIterableIterator<string> = {
    async next() {
      if (stalled !== undefined) throw stalled;
      if (ended) return { done: true, value: undefined };
      pulling = true;
      try {
        const step = await frames.next();
        if (step.done) end();
        return step;
      } catch (error) {
        end();
        throw error;
      } finally {
        pulling = false;
        idleSince = Date.now();
      }
    },
    async return() {
      end();
      await frames.return(undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  stallListeners.set(iterator, listeners);
  return iterator;
}
