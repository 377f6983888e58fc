/**
 * A host's cheap way to tell the core that the client left, without an `AbortSignal` per
 * request: an idle stream would otherwise hold two (the client's, and the engine's listening
 * to it), each with its own hidden class in Node. A registered symbol, so any copy of the core
 * finds it. Hosts without it are watched through `request.signal`.
 * @internal
 */
export const clientPresence = Symbol.for('quantum-chat.client-presence');

/** @internal */
export interface ClientPresence {
  readonly gone: boolean;
  /** Calls `listener` once when the client leaves (at once if it has); returns an unsubscribe. */
  watch(listener: () => void): () => void;
}

/** The request as the core watches it. @internal */
export interface WatchedClient {
  readonly signal: AbortSignal;
  readonly [clientPresence]?: ClientPresence;
}

/** Whether the client has left. @internal */
export function isClientGone(client: WatchedClient): boolean {
  const presence = client[clientPresence];
  return presence !== undefined ? presence.gone : client.signal.aborted;
}

/** Calls `listener` once when the client leaves (at once if it has); returns an unsubscribe. @internal */
export function watchClient(client: WatchedClient, listener: () => void): () => void {
  const presence = client[clientPresence];
  if (presence !== undefined) return presence.watch(listener);
  const signal = client.signal;
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** Why an engine was stopped when its client left. @internal */
export function clientClosedError(): Error {
  return new Error('The client closed the connection.');
}
