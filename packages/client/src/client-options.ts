import type { Sleep } from './http/sleep.js';

/** The fetch the client calls: the global one by default; pass your own for proxies, mocks or old runtimes. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link createChatClient}. */
export interface ChatClientOptions {
  /** The service address, ending with the version segment: `https://api.example.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Optional: `GET /models` works without one. */
  apiKey?: string | undefined;
  fetch?: FetchFunction;
  /** Milliseconds per attempt until the response (for a stream: until its headers). Default 10 minutes. */
  timeout?: number;
  /** Retries after the first attempt (408, 409, 429, 5xx, connection errors, timeouts). Default 2. */
  maxRetries?: number;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /**
   * `'openai'` asks the server for the OpenAI stream format (`x-stream-format: openai`). The
   * client reads both formats either way; this only matters to what goes over the wire.
   */
  streamFormat?: 'quantum' | 'openai';
  /** The wait between retries; injectable for tests. */
  sleep?: Sleep;
  /**
   * Attempts to re-open a resumable stream (`stream_options: { resumable: true }`) whose
   * connection dropped, per drop, with backoff. Default 3; 0 turns automatic resuming off.
   */
  maxResumeAttempts?: number;
}

/** Per-call options, overriding the client's. */
export interface RequestOptions {
  /** Aborts the call (and the stream): the call rejects with `APIUserAbortError`. */
  signal?: AbortSignal | undefined;
  timeout?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
  /**
   * Streams only: told when a resumable stream's connection dropped and the client is
   * re-opening it (`reconnecting`), and when it is read again (`resumed`); for a
   * "reconnecting…" in a user interface.
   */
  onResume?: ((event: { state: 'reconnecting' | 'resumed'; streamId: string; attempt: number }) => void) | undefined;
}

/** The resolved client options every call reads. @internal */
export interface ClientConfig {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: FetchFunction;
  timeout: number;
  maxRetries: number;
  defaultHeaders: Record<string, string>;
  streamFormat: 'quantum' | 'openai' | undefined;
  sleep: Sleep;
  maxResumeAttempts: number;
}
