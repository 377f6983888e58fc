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
  /** One listener as it is (most requests have one), several in an array. */
  #listeners: (() => void) | Array<() => void> | undefined = undefined;

  constructor(fields: ChatHttpRequestFields, res: NodeServerResponseLike) {
    this.method = fields.method;
    this.path = fields.path;
    this.query = fields.query;
    this.basePath = fields.basePath;
    this.headers = fields.headers;
    this.body = fields.body;
    this.#res = res;
    // A host parser may have read the body while the client left: 'close' has fired already then.
    if (res.destroyed) this.#responseClosed();
    // Bound, not an arrow: the request holds no context object for it.
    else res.on('close', this.#responseClosed.bind(this));
  }

  get connection(): ClientConnection {
    return this;
  }

  onClose(listener: () => void): () => void {
    if (this.closed) {
      listener();
      return () => undefined;
    }
    const listeners = this.#listeners;
    // Copied, not pushed: a pushed array grows to 17 slots, and a request has one or two listeners.
    this.#listeners = listeners === undefined ? listener : typeof listeners === 'function' ? [listeners, listener] : [...listeners, listener];
    return this.#unwatch.bind(this, listener);
  }

  #unwatch(listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === listener) this.#listeners = undefined;
    else if (Array.isArray(listeners)) {
      const index = listeners.indexOf(listener);
      if (index !== -1) listeners.splice(index, 1);
    }
  }

  #responseClosed(): void {
    if (this.#res.writableEnded) return;
    this.closed = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (typeof listeners === 'function') listeners();
    else for (const listener of listeners ?? []) listener();
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
