const stalledMarker = Symbol.for('quantum-chat.stream-stalled');

/**
 * The key of a stream's stall subscription: a registered symbol, so a host built against one
 * copy of the core can subscribe to a stream made by another. @internal
 */
export const stallSubscribe = Symbol.for('quantum-chat.on-stream-stalled');

export type StallListener = (error: Error) => void;

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

/** @internal */
export function createStreamStalledError(timeoutMs: number): Error {
  return new StreamStalledError(timeoutMs);
}

/**
 * True for the error a stalled stream's iterator throws (from any copy of the core).
 * @internal
 */
export function isStreamStalledError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[stalledMarker] === true;
}

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
  const subscribe = (events as { [stallSubscribe]?: (listener: StallListener) => () => void })[stallSubscribe];
  return typeof subscribe === 'function' ? subscribe.call(events, listener) : () => undefined;
}
