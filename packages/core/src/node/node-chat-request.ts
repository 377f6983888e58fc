import { clientClosedError, clientPresence, type ClientPresence } from '../http/client-presence.js';
import type { ChatHttpRequest, ChatHttpRequestBody } from '../http/chat-http-types.js';
import type { NodeServerResponseLike } from './node-like.js';

/** The plain parts of a request; the signal comes from the response it answers. */
export type ChatHttpRequestFields = Omit<ChatHttpRequest, 'signal'>;

/**
 * A request whose `signal` aborts when the response closes before it ended (the client went
 * away). The `AbortController` is made on first use, and the core watches the client through
 * `clientPresence` instead, so most requests never make one. A class, not an object literal
 * with a `get signal()`: each such literal gets a hidden class of its own (its getter is a new
 * closure), which cost about 1 µs and a promotion to the old generation per request.
 */
class NodeChatRequest implements ChatHttpRequest, ClientPresence {
  readonly method: string;
  readonly path: string;
  readonly basePath: string | undefined;
  readonly headers: ChatHttpRequest['headers'];
  body: ChatHttpRequestBody;
  gone = false;
  #controller: AbortController | undefined = undefined;
  #listeners: Array<() => void> | undefined = undefined;

  constructor(fields: ChatHttpRequestFields, res: NodeServerResponseLike) {
    this.method = fields.method;
    this.path = fields.path;
    this.basePath = fields.basePath;
    this.headers = fields.headers;
    this.body = fields.body;
    const onClose = () => {
      if (res.writableEnded) return;
      this.gone = true;
      this.#controller?.abort(clientClosedError());
      const listeners = this.#listeners;
      this.#listeners = undefined;
      for (const listener of listeners ?? []) listener();
    };
    // A host parser may have read the body while the client left: 'close' has fired already then.
    if (res.destroyed) onClose();
    else res.on('close', onClose);
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.gone) this.#controller.abort(clientClosedError());
    }
    return this.#controller.signal;
  }

  get [clientPresence](): ClientPresence {
    return this;
  }

  watch(listener: () => void): () => void {
    if (this.gone) {
      listener();
      return () => undefined;
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index !== -1) this.#listeners!.splice(index, 1);
    };
  }
}

/**
 * The core's request for a Node response: the given fields, and a signal that aborts when
 * the client leaves before the response ended. Watching starts at once, so a signal first
 * read after the client left comes back already aborted.
 *
 * @example
 * const request = createNodeChatRequest(res, { method: 'POST', path: '/chat/completions', headers: req.headers, body });
 */
export function createNodeChatRequest(res: NodeServerResponseLike, fields: ChatHttpRequestFields): ChatHttpRequest {
  return new NodeChatRequest(fields, res);
}
