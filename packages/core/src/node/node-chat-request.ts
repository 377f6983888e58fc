import type { ChatHttpRequest, ChatHttpRequestBody, ClientConnection } from '../contract/chat-http-types.js';
import type { NodeServerResponseLike } from './node-like.js';

/** The plain parts of a request; the connection comes from the response it answers. */
export type ChatHttpRequestFields = Omit<ChatHttpRequest, 'connection'>;

/**
 * A request that is its own `ClientConnection`: closed when the response closes before it
 * ended (the client went away), destroyed through `res.destroy()`. It watches one `close`
 * event and makes no `AbortController`: a signal per request was about a tenth of a JSON
 * request's CPU time. A class, not an object literal with getters: each such literal gets a
 * hidden class of its own (its getter is a new closure), which cost about 1 µs and a
 * promotion to the old generation per request.
 */
class NodeChatRequest implements ChatHttpRequest, ClientConnection {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly basePath: string | undefined;
  readonly headers: ChatHttpRequest['headers'];
  body: ChatHttpRequestBody;
  closed = false;
  readonly #res: NodeServerResponseLike;
  #listeners: Array<() => void> | undefined = undefined;

  constructor(fields: ChatHttpRequestFields, res: NodeServerResponseLike) {
    this.method = fields.method;
    this.path = fields.path;
    this.query = fields.query;
    this.basePath = fields.basePath;
    this.headers = fields.headers;
    this.body = fields.body;
    this.#res = res;
    const onClose = () => {
      if (res.writableEnded) return;
      this.closed = true;
      const listeners = this.#listeners;
      this.#listeners = undefined;
      for (const listener of listeners ?? []) listener();
    };
    // A host parser may have read the body while the client left: 'close' has fired already then.
    if (res.destroyed) onClose();
    else res.on('close', onClose);
  }

  get connection(): ClientConnection {
    return this;
  }

  onClose(listener: () => void): () => void {
    if (this.closed) {
      listener();
      return () => undefined;
    }
    // Copied, not pushed: a pushed array grows to 17 slots, and a request has one or two listeners.
    this.#listeners = this.#listeners === undefined ? [listener] : [...this.#listeners, listener];
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index !== -1) this.#listeners!.splice(index, 1);
    };
  }

  destroy(): void {
    this.#res.destroy?.();
  }
}

/**
 * The core's request for a Node response: the given fields, and the response as its client
 * connection (closed when the client leaves before the response ended; `destroy()` closes the
 * socket). Watching starts at once, so a client that left before the core looks is seen.
 *
 * @example
 * const request = createNodeChatRequest(res, { method: 'POST', path: '/chat/completions', headers: req.headers, body });
 */
export function createNodeChatRequest(res: NodeServerResponseLike, fields: ChatHttpRequestFields): ChatHttpRequest {
  return new NodeChatRequest(fields, res);
}
