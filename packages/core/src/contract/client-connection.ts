import type { ClientConnection } from './chat-http-types.js';

/**
 * The status a request is logged and recorded with when its client left before the answer
 * (decisions §5: `client_closed`, 499). Never sent: nobody is there to read it.
 */
export const clientClosedStatus = 499;

/** A request whose client left before its answer: what the handler settles and reports as 499. */
export class ClientClosedError extends Error {
  readonly code = 'client_closed';
  readonly status = clientClosedStatus;
  constructor(cause?: unknown) {
    super('The client closed the connection.', cause === undefined ? undefined : { cause });
    this.name = 'ClientClosedError';
  }
}

/** Why an engine was stopped when its client left. */
export function clientClosedError(): Error {
  return new ClientClosedError();
}

/** A connection watched through an `AbortSignal`; a class, so every instance shares one hidden class. */
class SignalConnection implements ClientConnection {
  readonly #signal: AbortSignal;
  readonly #destroy: () => void;

  constructor(signal: AbortSignal, destroy: () => void) {
    this.#signal = signal;
    this.#destroy = destroy;
  }

  get closed(): boolean {
    return this.#signal.aborted;
  }

  onClose(listener: () => void): () => void {
    const signal = this.#signal;
    if (signal.aborted) {
      listener();
      return () => undefined;
    }
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  }

  destroy(): void {
    this.#destroy();
  }
}

/**
 * A `ClientConnection` for a host that already has a signal which aborts when the client
 * leaves (a fetch runtime's `request.signal`). `destroy` closes the connection: for a
 * streamed response, error its body stream.
 *
 * @example
 * const connection = connectionFromSignal(request.signal, () => bodyController?.error(new Error('stalled')));
 */
export function connectionFromSignal(signal: AbortSignal, destroy: () => void): ClientConnection {
  return new SignalConnection(signal, destroy);
}
