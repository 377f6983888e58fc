import { isRunAborted, listenForAbort, QuantumChatError, stopListeningForAbort, type ChatEngineContext, type ChatEngineEvent, type ChatEngineRequest, type PassThroughPolicy } from '@quantum-chat/core';
import type { SseEvent } from '@quantum-chat/core/sse';
import { readErrorPayload, type WireUsage } from '@quantum-chat/core/dialect';
import { countApproximateTokens } from './approximate-tokens.js';
import { Deadline } from './deadline.js';
import { UpstreamAbort } from './upstream-abort.js';
import { readCappedText } from './read-capped-body.js';
import { readUpstreamEvents, type WaitHooks } from './read-upstream-events.js';
import { relayBudgetCharacters } from './relay-budget.js';
import { createUpstreamChunkMapper, type UpstreamChunkMapper } from './upstream-chunk-mapper.js';
import { createUpstreamResponsesMapper } from './upstream-responses-mapper.js';
import { toUpstreamResponsesBody } from './upstream-responses-body.js';
import type {
  UpstreamApi,
  UpstreamDeployment,
  UpstreamEngineOptions,
  UpstreamReasoningMode,
  UpstreamRequestEnd,
  UpstreamRequestStart,
  UpstreamRequestWatcher,
  UsageReplacement,
} from './upstream-engine-options.js';
import { failureFromNetwork, failureFromStatus } from './upstream-failure.js';
import type { UpstreamLimits } from './upstream-limits.js';
import { toUpstreamRequestBody } from './upstream-request-body.js';
import type { SendUpstream } from './upstream-transport.js';

/** A deployment with its own endpoint and transport. */
export interface Target extends UpstreamDeployment {
  api: UpstreamApi;
  url: string;
  send: SendUpstream;
}

/** What every attempt of one engine shares: its options, resolved once. */
export interface AttemptSettings {
  options: UpstreamEngineOptions;
  firstTokenTimeoutMs: number;
  idleTimeoutMs: number;
  answerTimeoutMs: number;
  reasoningMode: UpstreamReasoningMode;
  passThrough: PassThroughPolicy;
  limits: Required<UpstreamLimits>;
  reportUsageReplaced(report: UsageReplacement): void;
}

/** What a deployment answered: one whole completion (a runtime that ignored `stream: true`), or a stream of event batches. */
export type UpstreamAnswer = { whole: Iterable<ChatEngineEvent>; stream?: undefined } | { whole?: undefined; stream: AsyncIterable<SseEvent[]> };

/**
 * One try of a request on one deployment: its upstream abort (the client's abort forwarded),
 * its first-token and idle timers, its mapper of upstream chunks, and what became of it. The
 * engine's `generate` relays the events; everything else of the attempt is here. One object
 * holding its state, its own reader's hooks included: a waiting stream keeps no closures of it.
 */
export class UpstreamAttempt implements WaitHooks {
  readonly target: Target;
  /** The deployment's HTTP status, once it answered. */
  status: number | undefined;
  /** Why the attempt failed, as our client will see it; undefined while it has not. */
  failure: unknown;
  /** An event went to our caller: from then on a failure is final. */
  yielded = false;
  #finish: Extract<ChatEngineEvent, { type: 'finish' }> | undefined;
  /** `[DONE]` (or a Responses stream's terminal event) arrived: the answer is complete. */
  #done = false;
  #responded = false;
  /** The answer is asked for as one JSON completion: our client waits for it whole, and nothing else needs the stream. */
  readonly #whole: boolean;
  readonly #sentAt = performance.now();
  readonly #settings: AttemptSettings;
  readonly #request: ChatEngineRequest;
  readonly #context: ChatEngineContext;
  readonly #upstream = new UpstreamAbort();
  readonly #forwardAbort: () => void;
  readonly #deadline: Deadline;
  readonly #countPrompt: () => number;
  /** Made at the first upstream event (see `#mapper`). */
  #madeMapper: UpstreamChunkMapper | undefined = undefined;
  /** Until sent: then only the watcher, if any, keeps them. */
  #headers: Record<string, string> | undefined;
  readonly #watch: ((outcome: UpstreamRequestEnd) => void) | undefined;

  constructor(settings: AttemptSettings, target: Target, request: ChatEngineRequest, context: ChatEngineContext, countPrompt: () => number) {
    this.#settings = settings;
    this.target = target;
    this.#request = request;
    this.#context = context;
    // Bound, not an arrow over the constructor's scope: with that arrow, V8's scavenger kept every request's objects until promoted (see docs/benchmarks.md).
    this.#forwardAbort = this.#abortUpstream.bind(this);
    listenForAbort(context, this.#forwardAbort);
    this.#deadline = new Deadline(this.#upstream);
    this.#countPrompt = countPrompt;
    // The Responses wire keeps its stream: its JSON answer is read only from runtimes that ignore `stream`.
    this.#whole = context.stream === false && target.api === 'chat';
    this.#headers = {
      'content-type': 'application/json',
      accept: this.#whole ? 'application/json' : 'text/event-stream',
      ...settings.options.headers,
      ...target.headers,
      'x-request-id': context.requestId,
    };
    this.#watch = watchUpstreamRequest(settings.options, { url: target.url, model: target.model, requestId: context.requestId, headers: this.#headers });
    if (this.#whole) this.#deadline.arm(settings.answerTimeoutMs, answerTimeout);
    else this.#deadline.arm(settings.firstTokenTimeoutMs, firstTokenTimeout);
  }

  /** The client left or the server shuts down: the upstream request is aborted with the same reason. */
  #abortUpstream(): void {
    this.#upstream.abort(this.#context.signal.reason);
  }

  /**
   * The mapper of the deployment's events, made when the first one is read: a stream waiting
   * for its first token holds none (its closures were about 1.5 KiB of every waiting stream).
   * The same bounds whichever API the deployment speaks: only the reading of its wire differs.
   */
  #mapper(): UpstreamChunkMapper {
    if (this.#madeMapper !== undefined) return this.#madeMapper;
    const settings = this.#settings;
    const request = this.#request;
    const requestId = this.#context.requestId;
    const model = this.target.model;
    this.#madeMapper = (this.target.api === 'responses' ? createUpstreamResponsesMapper : createUpstreamChunkMapper)({
      showReasoning: settings.reasoningMode === 'keep' || (settings.reasoningMode === 'auto' && request.reasoning),
      countTokens: countApproximateTokens,
      countPromptTokens: this.#countPrompt,
      maxTokens: request.maxTokens,
      relayBudget: relayBudgetCharacters(request.maxTokens),
      maxToolArgumentsLength: settings.limits.maxToolArgumentsLength,
      onUsageReplaced: (reasons, reported, used) => settings.reportUsageReplaced({ requestId, model, reported: reportedCounts(reported), used, reasons }),
    });
    return this.#madeMapper;
  }

  /** Whether an answer's first token came (false while no event was read). */
  #started(): boolean {
    return this.#madeMapper?.started() === true;
  }

  /** Sends the request; a refusal becomes the failure its status means. */
  async send(): Promise<UpstreamAnswer> {
    const target = this.target;
    const { limits, passThrough } = this.#settings;
    const headers = this.#headers!;
    this.#headers = undefined;
    const response = await target.send({
      headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}`, ...headers } : headers,
      body: JSON.stringify(
        target.api === 'responses' ? toUpstreamResponsesBody(this.#request, target.model, passThrough) : toUpstreamRequestBody(this.#request, target.model, passThrough, !this.#whole),
      ),
      abort: this.#upstream,
    });
    this.#responded = true;
    this.status = response.status;
    if (!response.ok) {
      const errorBody = await readCappedText(response.body(), limits.maxErrorBodyBytes, { truncate: true });
      throw failureFromStatus(response.status, response.headers, readErrorPayload(parseJson(errorBody))?.message);
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (contentType.includes('json')) {
      const text = await readCappedText(response.body(), limits.maxResponseBytes);
      // The body was read to its end: nothing is left to abort, the connection goes back to the pool.
      this.#done = true;
      return { whole: readWhole(text, this.#mapper()) };
    }
    const body = contentType === '' || contentType.includes('event-stream') ? response.body() : null;
    if (body === null) throw new QuantumChatError('upstream_error', `The model server answered with '${contentType.slice(0, 100)}', not an event stream.`);
    if (this.#whole) {
      // Asked for JSON, it streams anyway: its tokens are timed as any stream's, from when it was asked.
      const firstTokenTimeoutMs = this.#settings.firstTokenTimeoutMs;
      this.#deadline.arm(Math.max(1, firstTokenTimeoutMs - (performance.now() - this.#sentAt)), firstTokenTimeout, firstTokenTimeoutMs);
    }
    return { stream: this.#events(body) };
  }

  #events(body: Parameters<typeof readUpstreamEvents>[0]): AsyncIterable<SseEvent[]> {
    return readUpstreamEvents(body, this, this.#settings.limits);
  }

  /** Before the first token only the first-token timer runs; after it, the idle timer (`WaitHooks`). */
  waitStarted(): void {
    if (this.#started()) this.#deadline.arm(this.#settings.idleTimeoutMs, idleTimeout);
  }

  /** `WaitHooks`: events came, the wait is over. */
  eventsArrived(): void {
    if (this.#started()) this.#deadline.clear();
  }

  /** `WaitHooks`: the answer is complete, so its body is drained for the connection's reuse. */
  drainOnExit(): boolean {
    return this.#done;
  }

  /** The events of one upstream event; undefined once the answer is complete (`[DONE]`): nothing more is read. */
  read(event: SseEvent): readonly ChatEngineEvent[] | undefined {
    const mapper = this.#mapper();
    const wasStarted = mapper.started();
    const mapped = mapper.read(event);
    if (mapper.done()) {
      // The answer is complete: a client leaving now must not destroy a reusable connection.
      this.#done = true;
      stopListeningForAbort(this.#context, this.#forwardAbort);
      return undefined;
    }
    if (!wasStarted && mapper.started()) this.#deadline.clear();
    return mapped;
  }

  /** Past `max_tokens` by our count (with a margin): the rest is not read, the answer ends with `length`. */
  cut(): boolean {
    return this.#madeMapper?.cut() === true;
  }

  /** The last events of a stream; a stream that stopped before finishing its answer is a failure. */
  end(): readonly ChatEngineEvent[] {
    const mapper = this.#mapper();
    if (!this.#done && !mapper.cut() && !mapper.finished()) throw new QuantumChatError('upstream_error', 'The model server ended the stream without finishing the answer.');
    return mapper.end();
  }

  /** Notes an event handed to our caller, and returns it. */
  relayed(event: ChatEngineEvent): ChatEngineEvent {
    if (event.type === 'finish') this.#finish = event;
    this.yielded = true;
    return event;
  }

  /** The attempt failed with `error`: what that means for our client (see `toFailure`). */
  fail(error: unknown): void {
    this.failure = toFailure(error, this.#upstream, this.#context, this.#responded);
  }

  /** Whether the deployment gave a whole answer (its `finish` went to our caller). */
  answered(): boolean {
    return this.#finish !== undefined;
  }

  /** Ends the attempt, however it went: reported, timers and listener cleared, an unfinished upstream request aborted. */
  close(): void {
    this.#watch?.({ status: this.status, error: this.failure, usage: this.#finish?.usage, finishReason: this.#finish?.reason });
    this.#deadline.clear();
    stopListeningForAbort(this.#context, this.#forwardAbort);
    // Closes the socket at once if the upstream is still sending (no-op after a complete body);
    // after `[DONE]` the body is drained instead, so the connection can be reused.
    if (!this.#done) this.#upstream.abort(new Error('The upstream request ended.'));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const firstTokenTimeout = (milliseconds: number) => new QuantumChatError('upstream_timeout', `The model server sent no first token within ${milliseconds} ms.`);
const answerTimeout = (milliseconds: number) => new QuantumChatError('upstream_timeout', `The model server gave no whole answer within ${milliseconds} ms.`);
const idleTimeout = (milliseconds: number) => new QuantumChatError('upstream_timeout', `The model server stalled: nothing for ${milliseconds} ms during the answer.`);

function* readWhole(text: string, mapper: UpstreamChunkMapper): Generator<ChatEngineEvent> {
  const payload = parseJson(text);
  if (payload === undefined) throw new QuantumChatError('upstream_error', 'The model server answered with JSON that is not a chat completion.');
  yield* mapper.readWhole(payload);
  yield* mapper.end();
}

/** What a failure means for our client: a timeout we set, the client leaving, or an upstream fault. */
function toFailure(error: unknown, upstream: UpstreamAbort, context: ChatEngineContext, responded: boolean): unknown {
  if (QuantumChatError.isInstance(error)) return error;
  if (isRunAborted(context)) return context.signal.reason;
  if (upstream.aborted && QuantumChatError.isInstance(upstream.reason)) return upstream.reason;
  return failureFromNetwork(error, responded);
}

/** The counts of a reported usage, and nothing else of it (a log line must never carry text). */
function reportedCounts(reported: WireUsage | undefined): UsageReplacement['reported'] {
  if (reported === undefined) return undefined;
  return { promptTokens: reported.prompt_tokens, completionTokens: reported.completion_tokens, reasoningTokens: reported.completion_tokens_details?.reasoning_tokens };
}

/** The watcher of one upstream request, or undefined; a failing hook never fails the request. */
function watchUpstreamRequest(options: UpstreamEngineOptions, start: UpstreamRequestStart): ((outcome: UpstreamRequestEnd) => void) | undefined {
  if (options.onUpstreamRequest === undefined) return undefined;
  let watcher: UpstreamRequestWatcher | undefined | void;
  try {
    watcher = options.onUpstreamRequest(start);
  } catch {
    return undefined;
  }
  if (watcher === undefined) return undefined;
  return (outcome) => {
    try {
      watcher.end(outcome);
    } catch {
      // Reporting only.
    }
  };
}
