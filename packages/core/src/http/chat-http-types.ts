/** What a host hands the core: plain data, no framework types. */
export interface ChatHttpRequest {
  method: string;
  /** Path below the mount point, query stripped: "/chat/completions", "/models". */
  path: string;
  /**
   * Where the host mounts the API: "/v1", "/compat/v1", "/api/v1" ("" or absent at the root).
   * Routing reads only `path`; the mount point goes into error messages, which name the full
   * path the client used, and into the OpenAPI document's server URL.
   */
  basePath?: string;
  /** Node's header shape (lower-case names), which Express and Fastify already have. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Raw bytes are preferred: signatures are computed over them and UTF-8 is checked on them. */
  body: ChatHttpRequestBody;
  /** Aborts when the client goes away; the engine stops generating. */
  signal: AbortSignal;
}

export type ChatHttpRequestBody =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'text'; text: string }
  /** An upstream body parser (a global `express.json()`) already consumed the stream. */
  | { kind: 'parsed'; value: unknown }
  /** The host refused the body itself; the core writes the 413/400 envelope. */
  | { kind: 'rejected'; reason: 'too-large' | 'unreadable' | 'invalid-json' }
  | { kind: 'empty' };

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
   * Complete SSE frames. Ending the loop early (`return()`) aborts the engine, as does the
   * request's `signal`.
   */
  events: AsyncIterable<string>;
}

/** The framework-neutral handler every host wraps. */
export interface ChatHandler {
  /** Never rejects: every failure is already an error envelope. */
  handle(request: ChatHttpRequest): Promise<ChatHttpResponse>;
  /** The same handler behind a web-standard face: fetch runtimes and in-process tests. */
  fetch(request: Request): Promise<Response>;
}
