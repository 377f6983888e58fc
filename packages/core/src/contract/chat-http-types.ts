/**
 * The host contract: what a host hands the core and gets back. Plain data and two small
 * interfaces, no framework types and no hidden channels; the core README documents it.
 */
export interface ChatHttpRequest {
  method: string;
  /** Path below the mount point, query stripped: "/chat/completions", "/models". */
  path: string;
  /**
   * The query string without its `?` ("starting_after=12"), when there is one: the resume
   * routes and the Responses API's retrieve and input-item list read it.
   */
  query?: string | undefined;
  /**
   * Where the host mounts the API: "/v1", "/compat/v1", "/api/v1" ("" or absent at the root).
   * Routing reads only `path`; the mount point goes into error messages, which name the full
   * path the client used, and into the OpenAPI document's server URL.
   */
  basePath?: string;
  /** Node's header shape (lower-case names), which Express and Fastify already have. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The body. Hand it over unread when you can (`kind: 'unread'`): the core then reads it under
   * its own `maxBodyBytes`, so the limit is the handler's whatever the host. Raw bytes are
   * preferred over text: signatures are computed over them and UTF-8 is checked on them.
   */
  body: ChatHttpRequestBody;
  /** The client's connection: how the core learns that the client left, and closes a stalled stream. */
  connection: ClientConnection;
}

/** A body the host has read (or refused), as the core checks it. */
export type ChatHttpReadBody =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'text'; text: string }
  /** An upstream body parser (a global `express.json()`) already consumed the stream. */
  | { kind: 'parsed'; value: unknown }
  /**
   * The host refused the body itself; the core writes the 413/400 envelope (408 for
   * `timed-out`: the host's own request timeout passed before the body arrived).
   */
  | { kind: 'rejected'; reason: 'too-large' | 'unreadable' | 'invalid-json' | 'timed-out' }
  | { kind: 'empty' };

export type ChatHttpRequestBody =
  | ChatHttpReadBody
  /**
   * Not read yet: the core calls `read` at most once, with its `maxBodyBytes`, and only for
   * routes that take a body. `read` stops reading past the limit and resolves `rejected`
   * (`too-large`); it never rejects. A body that has not arrived within the handler's
   * `requestTimeoutMs` of the call is answered 408 `request_timeout`.
   */
  | { kind: 'unread'; read(maxBodyBytes: number): Promise<ChatHttpReadBody> };

/**
 * One client connection, as the host sees it. Implemented without an `AbortController` (the
 * Node bridge watches the response's `close` event), because a signal per request is a
 * measurable cost on the JSON path; a host that has a signal anyway can use
 * `connectionFromSignal`.
 */
export interface ClientConnection {
  /** True once the client has gone: the connection closed before the response ended. */
  readonly closed: boolean;
  /** Calls `listener` once when the client goes (at once if it has); returns a function that removes it. */
  onClose(listener: () => void): () => void;
  /**
   * Closes the connection at once, without ending the response. The core calls it when a
   * stream's client read nothing for `stallTimeoutMs` (its socket is full, so a host parked
   * on `drain` would wait forever); by then the engine is stopped and the request settled.
   */
  destroy(): void;
}

/** What the core hands back: either a finished body or a stream of encoded SSE frames. */
export type ChatHttpResponse = ChatHttpBodyResponse | ChatHttpStreamResponse;

export interface ChatHttpBodyResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface ChatHttpStreamResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  /**
   * Complete SSE frames, to write in order. Ending the loop early (`return()`) stops the
   * engine, as does the connection closing. After the core gave up on a stalled stream (and
   * called `connection.destroy()`), the next pull rejects.
   */
  events: AsyncIterable<string>;
}

/** The framework-neutral handler every host wraps. */
export interface ChatHandler {
  /** Never rejects: every failure is already an error envelope. */
  handle(request: ChatHttpRequest): Promise<ChatHttpResponse>;
  /** The same handler behind a web-standard face: fetch runtimes and in-process tests. */
  fetch(request: Request): Promise<Response>;
  /**
   * The body limit (the `maxBodyBytes` option, 1 MiB by default). Every host honours it: hand
   * the body over unread, or configure your framework's own parser with this limit.
   */
  readonly maxBodyBytes: number;
  /**
   * The request timeout (the `requestTimeoutMs` option, 30 s by default; 0: none): headers and
   * body must arrive within it, else 408 `request_timeout`. The core times the bodies it reads
   * itself; the headers, and bodies a framework reads, are timed by the host's server (see
   * `applyRequestTimeout` in `@quantum-chat/core/node`).
   */
  readonly requestTimeoutMs: number;
}
