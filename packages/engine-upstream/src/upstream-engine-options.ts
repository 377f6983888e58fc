import type { EngineUsage } from '@quantum-chat/core';
import type { Dispatcher } from 'undici';

/** How reasoning is treated: see {@link UpstreamEngineOptions.reasoning}. */
export type UpstreamReasoningMode = 'auto' | 'keep' | 'drop';

/** Options of {@link createUpstreamEngine}. */
export interface UpstreamEngineOptions {
  /** The OpenAI-compatible base URL, up to and including the version: `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** The upstream's model name: `llama3.2`, `deepseek-reasoner`, `Qwen/Qwen3-8B`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Extra request headers (an `OpenAI-Organization`, a gateway's routing header, ...). */
  headers?: Record<string, string>;
  /** Time to open the TCP (and TLS) connection; 5000 ms by default. Enforced by the default dispatcher. */
  connectTimeoutMs?: number;
  /** Time from sending the request to the first generated token (any reasoning, content or tool call); 60000 ms by default, which covers a model load. */
  firstTokenTimeoutMs?: number;
  /** Longest silence between two upstream events once tokens flow; 30000 ms by default. */
  idleTimeoutMs?: number;
  /**
   * `auto` (the default) yields reasoning only when the model shows reasoning (`request.reasoning`,
   * true for `quantum-reasoner`); `keep` always yields it; `drop` never does. Dropped reasoning
   * still counts as completion tokens, and never leaks into the content.
   */
  reasoning?: UpstreamReasoningMode;
  /**
   * `'all'`: top-level request fields our schema does not know (vendor extras such as `top_k`
   * or `chat_template_kwargs`) are forwarded to the runtime, and so not reported as ignored.
   * `'none'` (the default): they are left out and named in `x-quantum-ignored-params`.
   */
  passThrough?: 'all' | 'none';
  /** A fetch of your own (tests, proxies). With it, `connectTimeoutMs` applies only if you also pass a `dispatcher`. */
  fetch?: typeof globalThis.fetch;
  /** An undici dispatcher for the default fetch (a proxy agent, TLS settings, ...). */
  dispatcher?: Dispatcher;
  /**
   * Called as each upstream request starts, for tracing: it may add headers (a W3C `traceparent`)
   * to `start.headers`; the watcher it returns hears how the request ended. Reporting only: what
   * it throws is ignored.
   */
  onUpstreamRequest?: (start: UpstreamRequestStart) => UpstreamRequestWatcher | undefined | void;
}

/** An upstream request about to be sent. */
export interface UpstreamRequestStart {
  /** The upstream `/chat/completions` URL. */
  url: string;
  /** The upstream's model name. */
  model: string;
  /** Our request's `x-request-id`, also sent upstream. */
  requestId: string;
  /** The request's headers (without the `apiKey`'s authorization); headers set here are sent. */
  headers: Record<string, string>;
}

/** How an upstream request ended. */
export interface UpstreamRequestEnd {
  /** The upstream's HTTP status, when it answered. */
  status: number | undefined;
  /** What the request failed with (a `QuantumChatError`, or the client's abort reason). */
  error: unknown;
  /** The usage and finish reason of a finished answer. */
  usage: EngineUsage | undefined;
  finishReason: 'stop' | 'length' | 'tool_calls' | undefined;
}

export interface UpstreamRequestWatcher {
  end(outcome: UpstreamRequestEnd): void;
}

export const defaultConnectTimeoutMs = 5_000;
export const defaultFirstTokenTimeoutMs = 60_000;
export const defaultIdleTimeoutMs = 30_000;
