import type { PromptMeasure } from '../engine/chat-engine.js';
import type { MeasuredPrompt } from '../engine/measured-prompt.js';
import type { Plan } from '../schemas/model.js';
import type { ApiKeyKind, ParsedApiKey } from './parse-api-key.js';

/** Who is calling: resolved from an API key. */
export interface Principal {
  /** A display id of the key (prefix and last 4), never the secret. */
  keyId: string;
  organisationId: string;
  plan: Plan;
  kind: ApiKeyKind;
  /** The key is only valid with a good `X-Service-Signature`. */
  requireSignature?: boolean;
  /**
   * The only models the key may use (its access control refuses the others); absent: every
   * model its plan allows. The model list marks the others `available: false`.
   */
  allowedModels?: readonly string[];
}

/** What a chat request asks of the limits: tokens are reserved as `prompt + max_tokens`. */
export interface AdmissionDemand {
  /** The request's `x-request-id`, for usage records. */
  requestId: string;
  model: string;
  /**
   * The prompt as the engine measures it (the handler always gives it): a cheap bound, enough
   * for the decisions that need no exact count (a request over its request limit is refused
   * whatever its prompt, so it should never pay for tokenising it), and the exact count on call
   * (a long prompt in turns of the event loop; counted once). See `PromptMeasure`.
   */
  prompt?: PromptMeasure;
  /**
   * The prompt's exact count: given here by a demand made by hand (without `prompt`). On the
   * handler's demand, reading it counts the prompt at once unless it was counted already (a
   * long one being counted in turns reads as its bound): an access control reads `prompt`.
   */
  readonly promptTokens: number;
  maxTokens: number;
  /**
   * Which API the request came through: known at admission, so that a running request's usage
   * row says it from the start (one its instance never settles is still counted under its API).
   */
  api?: 'chat.completions' | 'responses';
  /** @deprecated Read `prompt.bound` (there when `prompt.count` is); kept until the next major release. */
  promptTokensBound?: number;
  /** @deprecated Call `prompt.count`; kept until the next major release. */
  countPromptTokens?: () => number | Promise<number>;
}

/**
 * The handler's demand: the prompt's measure, and the deprecated ways of reading it. A class,
 * not a literal with a getter: one hidden class for all requests.
 */
export class MeasuredDemand implements AdmissionDemand {
  readonly requestId: string;
  readonly model: string;
  readonly maxTokens: number;
  readonly prompt: MeasuredPrompt;
  readonly promptTokensBound: number | undefined;
  readonly countPromptTokens: (() => number | Promise<number>) | undefined;
  readonly api: 'chat.completions' | 'responses';

  constructor(requestId: string, model: string, maxTokens: number, prompt: MeasuredPrompt, api: 'chat.completions' | 'responses' = 'chat.completions') {
    this.requestId = requestId;
    this.model = model;
    this.maxTokens = maxTokens;
    this.prompt = prompt;
    this.api = api;
    this.promptTokensBound = prompt.count === undefined ? undefined : prompt.bound;
    this.countPromptTokens = prompt.count;
  }

  get promptTokens(): number {
    return this.prompt.tokensNow();
  }
}

/** How a request ended, to settle its reservation to what it really used. */
export interface AdmissionOutcome {
  promptTokens: number;
  completionTokens: number;
  /** Of `promptTokens`, those the model read from its prompt cache, when it said (for the ledger). */
  cachedPromptTokens?: number;
  /** The HTTP status answered (200 also for a stream that failed mid-way). */
  status: number;
  /** The stream ended by a client disconnect or an error frame. */
  interrupted: boolean;
  /** Which API the request came through, for usage records; absent from hand-made outcomes. */
  api?: 'chat.completions' | 'responses';
}

/** What a running request has produced so far. */
export interface AdmissionProgress {
  promptTokens: number;
  completionTokens: number;
}

/** An admitted request: headers to send (`x-ratelimit-*`) and a settle step that runs once. */
export interface Admission {
  headers: Record<string, string>;
  settle(outcome: AdmissionOutcome): void | Promise<void>;
  /**
   * true: an answer is acknowledged only once `settle` resolved (its usage is durable): the
   * handler settles a finished request before it hands out the last bytes of a JSON body, or a
   * stream's finish, usage and `[DONE]` frames; a rejection becomes the request's error (a JSON
   * answer) or its error frame (a stream). Otherwise (default) `settle` runs beside the answer
   * and its failures are only reported.
   */
  settleBeforeAnswer?: boolean;
  /**
   * Called once the engine starts, with a reader of the tokens produced so far: an access
   * control that writes running requests down (so that a crash of the instance still bills
   * what was produced) calls it now and then until `settle`. Reading counts tokens: not per event.
   */
  track?(read: () => AdmissionProgress): void;
}

/**
 * Keys, plans and limits, plugged into the handler (decisions §6). The handler has already
 * checked the key's shape and checksum before `authenticate` runs, so a store is never asked
 * about a malformed key.
 */
export interface AccessControl {
  /** The principal of a well-formed key; throws `invalid_api_key` when it is unknown or revoked. */
  authenticate(key: ParsedApiKey): Promise<Principal>;
  /** Admits a chat request or throws a 429 `QuantumChatError`. */
  admit?(principal: Principal, demand: AdmissionDemand): Promise<Admission>;
  /**
   * Counts a request that generates nothing (a resumable stream's resume, result or cancel,
   * decisions §4.7) against the requests per minute, never against tokens; throws a 429
   * `QuantumChatError` past the limit. Resolves with the `x-ratelimit-*` headers to send.
   */
  admitRequest?(principal: Principal): Promise<{ headers: Record<string, string> }>;
}

