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
   * The prompt's tokens as the engine counts them. With an engine that bounds its prompt
   * (`promptTokensBound` is then set), reading this counts the prompt at once, holding the
   * event loop for a long one: an access control that knows `countPromptTokens` uses that.
   */
  readonly promptTokens: number;
  maxTokens: number;
  /**
   * A cheap bound that `promptTokens` never exceeds, when the engine gives one: enough for the
   * decisions that do not need the exact count (a request over its request limit is refused
   * whatever its prompt, so it should never pay for tokenising it).
   */
  promptTokensBound?: number;
  /**
   * With `promptTokensBound`: the exact count, computed on call (a long prompt in turns of the
   * event loop; remembered, so the engine does not count it again).
   */
  countPromptTokens?: () => number | Promise<number>;
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

