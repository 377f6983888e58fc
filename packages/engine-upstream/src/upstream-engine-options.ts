import type { EngineUsage, PassThroughPolicy } from '@quantum-chat/core';
import type { Dispatcher } from 'undici';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import type { RetryOptions } from './retry-delay.js';
import type { UpstreamLimits } from './upstream-limits.js';

/** How reasoning is treated: see {@link UpstreamEngineOptions.reasoning}. */
export type UpstreamReasoningMode = 'auto' | 'keep' | 'drop';

/**
 * Which API of the server the engine speaks: `chat` (`POST {baseUrl}/chat/completions`, every
 * OpenAI-compatible server) or `responses` (`POST {baseUrl}/responses`, for a runtime that
 * serves the Responses API: vLLM, Ollama, OpenAI). Either way the engine serves our chat
 * completions and Responses requests alike.
 */
export type UpstreamApi = 'chat' | 'responses';

/** One server (replica) that serves the model: see {@link UpstreamEngineOptions.deployments}. */
export interface UpstreamDeployment {
  /** The OpenAI-compatible base URL, up to and including the version: `http://10.0.0.7:8000/v1`. */
  baseUrl: string;
  /** The model's name on this server. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Extra request headers for this server, after the engine's `headers`. */
  headers?: Record<string, string>;
  /** Its share of the load relative to the others; 1 by default. */
  weight?: number;
  /** The most requests it serves at once; unlimited by default. */
  maxConcurrency?: number;
  /** The API it is sent requests on; `chat` by default (see {@link UpstreamApi}). */
  api?: UpstreamApi;
}

/** Options of {@link createUpstreamEngine}: one server (`baseUrl`, `model`, `apiKey`) or several (`deployments`). */
export interface UpstreamEngineOptions {
  /** The OpenAI-compatible base URL, up to and including the version: `http://127.0.0.1:11434/v1`. */
  baseUrl?: string;
  /** The upstream's model name: `llama3.2`, `deepseek-reasoner`, `Qwen/Qwen3-8B`. */
  model?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** The API the server of `baseUrl` is sent requests on; `chat` by default (see {@link UpstreamApi}). With `deployments`, each says its own. */
  api?: UpstreamApi;
  /**
   * Several servers (replicas) of the model, instead of `baseUrl` and `model`. Each request goes
   * to the least busy one (fewest requests in flight per unit of `weight`) that is not taken
   * out; a failure before the first token (unreachable, 5xx, 429, no first token in time) is
   * retried on another (see `retry`); a server that keeps failing is taken out and probed back
   * in (see `circuitBreaker`). Once a token has been passed on there is no retry.
   */
  deployments?: readonly UpstreamDeployment[];
  /** Retries on other deployments; with one deployment there are none. */
  retry?: RetryOptions;
  /** When a deployment is taken out and probed back in (only with several deployments). */
  circuitBreaker?: CircuitBreakerOptions;
  /** Extra request headers (an `OpenAI-Organization`, a gateway's routing header, ...). */
  headers?: Record<string, string>;
  /** Time to open the TCP (and TLS) connection; 5000 ms by default. Enforced by the default dispatcher. */
  connectTimeoutMs?: number;
  /** Time from sending the request to the first generated token (any reasoning, content or tool call); 60000 ms by default, which covers a model load. */
  firstTokenTimeoutMs?: number;
  /** Longest silence between two upstream events once tokens flow; 30000 ms by default. */
  idleTimeoutMs?: number;
  /**
   * For a client that does not stream (its answer is asked of the model server as JSON): time
   * from sending the request to the whole answer; 600000 ms by default. There are no events to
   * time in between, so this replaces the first-token and idle timeouts of a stream.
   */
  answerTimeoutMs?: number;
  /**
   * How much of an answer is read (see {@link UpstreamLimits}): decoded bytes, an error body,
   * one event, one tool call's arguments. Whatever the limits, an answer is cut with finish
   * reason `length` once our own count passes its `max_tokens` by a margin (decisions §8).
   */
  limits?: UpstreamLimits;
  /**
   * `auto` (the default) yields reasoning only when the model shows reasoning (`request.reasoning`,
   * true for `quantum-reasoner`); `keep` always yields it; `drop` never does. Dropped reasoning
   * still counts as completion tokens, and never leaks into the content.
   */
  reasoning?: UpstreamReasoningMode;
  /**
   * Which top-level request fields our schema does not know (vendor extras such as `top_k` or
   * `chat_template_kwargs`) are forwarded to the runtime, and so not reported as ignored: the
   * names listed (`['top_k', 'min_p', 'chat_template_kwargs']`), or `'all'` but the fields
   * that change what you pay or what the upstream keeps (`passThroughDeniedFields`: `store`,
   * `service_tier`, `best_of`, `ignore_eos`, ...). `'none'` (the default): none. The fields
   * left out are named in `x-quantum-ignored-params`.
   */
  passThrough?: PassThroughPolicy;
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
  /**
   * Called when an answer's reported usage was not taken as it came (decisions §6): a count that
   * was missing, negative, fractional, above the request's `max_tokens` or far above our own
   * count of the text relayed was replaced by our own count. Figures and reasons only, never
   * text. By default a one-line warning on the console; the ready server logs it.
   */
  onUsageReplaced?: (report: UsageReplacement) => void;
}

/** An answer whose reported usage was replaced by our own count. */
export interface UsageReplacement {
  /** Our request's `x-request-id`. */
  requestId: string;
  /** The upstream's model name. */
  model: string;
  /** What the upstream reported (counts only; `undefined` for a count it did not send, or no usage at all). */
  reported: { promptTokens: unknown; completionTokens: unknown; reasoningTokens: unknown } | undefined;
  /** What is charged instead. */
  used: EngineUsage;
  /** Why, one line each: `completion_tokens (99999999) is above max_tokens (4096)`. */
  reasons: string[];
}

/** An upstream request about to be sent. */
export interface UpstreamRequestStart {
  /** The upstream URL: `{baseUrl}/chat/completions`, or `{baseUrl}/responses` for a deployment with `api: 'responses'`. */
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
export const defaultAnswerTimeoutMs = 600_000;
