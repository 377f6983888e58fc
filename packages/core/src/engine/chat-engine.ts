import type { PassThroughPolicy } from './pass-through-policy.js';
import type { TokenLogprob } from '../schemas/logprobs.js';
import type { EngineResponseFormat } from '../schemas/response-format.js';
import type { ToolChoice, ToolDefinition } from '../schemas/tool-definition.js';
import type { ToolCall } from '../schemas/tool-call.js';

/** A message as an engine sees it: roles normalised (`developer` → `system`), text parts joined. */
export type EngineMessage =
  | { role: 'system' | 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[]; reasoning?: string; name?: string }
  | { role: 'tool'; content: string; toolCallId: string };

/** A validated request with every default applied (decisions §2). */
export interface ChatEngineRequest {
  model: string;
  messages: EngineMessage[];
  tools: ToolDefinition[];
  /** `"auto"` with tools, `"none"` without, unless the client chose. */
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  temperature: number;
  /** Caps all completion tokens, reasoning included. */
  maxTokens: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  user?: string;
  /** `response_format` when the client asked for JSON; absent for plain text (the default). */
  responseFormat?: EngineResponseFormat;
  /** Present when the client asked for `logprobs`: how many alternatives per token it wants (0–20). */
  logprobs?: { topLogprobs: number };
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Token ids (as strings) to a bias from -100 to 100. */
  logitBias?: Record<string, number>;
  reasoningEffort?: 'low' | 'medium' | 'high';
  /**
   * Top-level fields the request schema does not know (vendor extras such as `top_k`), as the
   * client sent them: only those the engine's `passThrough` forwards.
   */
  extraFields?: Record<string, unknown>;
  /** Whether the model shows reasoning (only `quantum-reasoner` of the built-ins). */
  reasoning: boolean;
}

/** Token counts an engine reports with its finish event. */
export interface EngineUsage {
  promptTokens: number;
  /** All generated tokens, reasoning included. */
  completionTokens: number;
  reasoningTokens: number;
  /**
   * Of `promptTokens`, those the model read from its prompt cache, when it says (OpenAI's
   * `usage.prompt_tokens_details.cached_tokens`): passed on to the client and kept in the ledger.
   */
  cachedPromptTokens?: number;
  /**
   * Further counts a model reported in OpenAI's fields, passed on to the client as they came
   * (decisions §3): `prompt_tokens_details.audio_tokens`, and beside `reasoning_tokens` in
   * `completion_tokens_details`, `accepted_prediction_tokens`, `rejected_prediction_tokens`
   * and `audio_tokens`.
   */
  promptAudioTokens?: number;
  acceptedPredictionTokens?: number;
  rejectedPredictionTokens?: number;
  completionAudioTokens?: number;
}

/**
 * What an engine yields. Tool-call fragments are keyed by `index`; the first fragment of a
 * call carries its `name`. The last event is always `finish`.
 */
export type ChatEngineEvent =
  | { type: 'reasoning'; text: string }
  | {
      type: 'content';
      text: string;
      /** The log probabilities of the tokens of `text`, when the request asked for them. */
      logprobs?: readonly TokenLogprob[];
    }
  | { type: 'tool-call'; index: number; name?: string; argumentsDelta: string }
  | {
      type: 'finish';
      reason: 'stop' | 'length' | 'tool_calls';
      usage: EngineUsage;
      /** The model's `system_fingerprint`, when it reported one (an upstream): passed on as it came. */
      systemFingerprint?: string;
    };

export interface ChatEngineContext {
  /** Aborts when the client leaves or the server shuts down: stop generating at once. */
  signal: AbortSignal;
  /**
   * The same abort as `signal`, watched without making one: `onAbort` calls `listener` once when
   * the run is aborted (at once if it is; read the reason from `signal.reason`), `offAbort`
   * removes it, and `aborted` is `signal.aborted`. For an engine that only forwards the abort
   * (to an HTTP request of its own): a request that ends normally then costs no
   * `AbortController`. The core's contexts have all three; a context made by hand may have
   * only `signal`.
   */
  onAbort?(listener: () => void): void;
  offAbort?(listener: () => void): void;
  readonly aborted?: boolean;
  /** The request's `x-request-id`, for logs and upstream forwarding. */
  requestId: string;
  /**
   * False when the client waits for the whole answer (`stream` not set): nothing is sent before
   * `finish`, so an engine may produce the answer whole (the upstream engine then asks its
   * model server for JSON). True or absent: the client reads events as they come.
   */
  stream?: boolean;
}

/**
 * A model runtime behind one interface (decisions §8): the reference engine, an upstream
 * OpenAI-compatible server, or anything of your own.
 *
 * @example
 * const echo: ChatEngine = {
 *   async *generate(request) {
 *     yield { type: 'content', text: 'hi' };
 *     yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
 *   },
 * };
 */
export interface ChatEngine {
  /**
   * The unknown top-level request fields the engine forwards to its model: the names listed,
   * or `'all'` but the built-in deny-list (`passThroughDeniedFields`). The handler gives those
   * (`request.extraFields`) to it and names only the others in `x-quantum-ignored-params`.
   */
  readonly passThrough?: PassThroughPolicy;
  /**
   * The answer's events. An engine that gets them in bursts can return `eventsInBatches(...)`:
   * its iterator's `takeReady()` hands the core the rest of a burst without a promise per event.
   */
  generate(request: ChatEngineRequest, context: ChatEngineContext): AsyncIterable<ChatEngineEvent>;
  /**
   * The request's prompt tokens, to reserve token quota before generating: a cheap bound at
   * once, and the exact count when asked (see `PromptMeasure`). Without it a prompt counts 0.
   */
  measurePrompt?(request: ChatEngineRequest): PromptMeasure;
  /** Tokens of generated text, used to settle usage when a request is interrupted. */
  countTokens?(text: string): number;
  /** @deprecated Give `measurePrompt` instead (`{ bound: tokens }`); still used when it is absent, until the next major release. */
  countPromptTokens?(request: ChatEngineRequest): number;
  /** @deprecated Give `measurePrompt` instead (its `bound`); still used when it is absent, until the next major release. */
  estimatePromptTokens?(request: ChatEngineRequest): number;
  /** @deprecated Give `measurePrompt` instead (its `count` may return a promise); still used when it is absent, until the next major release. */
  countPromptTokensAsync?(request: ChatEngineRequest): Promise<number>;
}

/**
 * What an engine knows of a prompt before generating. The bound answers the questions that need
 * no exact count (a request over its request limit is refused whatever its prompt), so a
 * request refused anyway never pays for tokenising; `count` is called only past those.
 *
 * @example
 * // A tokenizer whose tokens are at least a byte: the bytes bound the count.
 * measurePrompt(request) {
 *   const bound = framing + utf8Bytes(request);
 *   return { bound, count: () => (bound < countPromptAtOnceBelow ? countNow(request) : countInTurns(request)) };
 * }
 * // A count as cheap as any bound (an approximation): the bound is the count.
 * measurePrompt(request) {
 *   return { bound: approximateTokens(request) };
 * }
 */
export interface PromptMeasure {
  /**
   * A number the prompt's tokens never exceed, found without tokenising it (for a tokenizer
   * whose tokens are at least a UTF-8 byte: the bytes of the texts plus the framing). Without
   * `count`, it is the count itself.
   */
  readonly bound: number;
  /**
   * The exact count: a number when counting at once is cheap (a prompt bounded under
   * `countPromptAtOnceBelow`), a promise when a long prompt is counted in turns of the event
   * loop, so that it never holds it long. Absent when `bound` is already exact.
   */
  count?(): number | Promise<number>;
}
