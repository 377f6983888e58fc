import type { ClientConnection } from '../contract/chat-http-types.js';

/**
 * The connection a resumable run's engine watches: the client's own until the stream's
 * response starts (a client gone before that never learnt the stream's id, so its run stops
 * as any other), then one that never closes: the run goes on without its client, to its end
 * or a cancel (decisions §4.7).
 */
export class DetachableConnection implements ClientConnection {
  readonly #client: ClientConnection;
  #listeners: Array<() => void> = [];
  #unwatch: (() => void) | undefined;
  #detached = false;

  constructor(client: ClientConnection) {
    this.#client = client;
    this.#unwatch = client.onClose(() => {
      for (const listener of this.#listeners.splice(0)) listener();
    });
  }

  get closed(): boolean {
    return !this.#detached && this.#client.closed;
  }

  onClose(listener: () => void): () => void {
    if (this.closed) {
      listener();
      return () => undefined;
    }
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index !== -1) this.#listeners.splice(index, 1);
    };
  }

  /** Nobody reads the run's frames directly: its followers read the store. */
  destroy(): void {}

  /** From now on the run does not depend on its client. */
  detach(): void {
    this.#detached = true;
    this.#listeners = [];
    this.#unwatch?.();
    this.#unwatch = undefined;
  }
}
