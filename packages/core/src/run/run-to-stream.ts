import { ClientClosedError } from '../contract/client-connection.js';
import type { ChatHttpResponse } from '../contract/chat-http-types.js';
import type { ChatEngineEvent } from '../engine/chat-engine.js';
import type { ChatRequestWatch } from './chat-request-observer.js';
import { EngineRun } from './engine-run.js';
import { KeepAliveBatch } from './keep-alive-batch.js';
import { explainFailure, failureStatus } from './run-failure.js';
import { RunProgress } from './run-progress.js';
import type { RunSettings } from './run-settings.js';
import { streamRunFrames, type RunFramer } from './stream-run-frames.js';

type Frames = AsyncIterableIterator<string>;
type MakeFramer = (settings: RunSettings) => RunFramer;

/**
 * An SSE response's headers, then `headers`, then a resumable stream's id. Why a literal with the
 * spread last: on Node 20, a literal that starts with a spread (`{ ...shared, ...headers }`) gets
 * a hidden class of its own per response once warm (about 1 µs, and every reader goes megamorphic).
 */
export function sseHeadersWith(headers: Record<string, string>, streamId?: string): Record<string, string> {
  const all: Record<string, string> = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...headers };
  if (streamId !== undefined) all['x-quantum-stream-id'] = streamId;
  return all;
}

/**
 * Starts a stream (decisions §4): resolves with its SSE frames once the engine produced its
 * first event, so that an early failure is still a real HTTP error. An engine still silent
 * after the keep-alive interval does not hold the response back any longer: the stream starts
 * with a `: keep-alive` (proxies cut silent connections), and a failure after that is an
 * `error` frame, the stream ending without `[DONE]`. `makeFramer` gives another wire's frames
 * (the Responses API's); chat completions' by default.
 */
export function runToStream(settings: RunSettings, makeFramer?: MakeFramer): Promise<Frames> {
  return new StreamStart(settings, makeFramer, undefined, undefined).start(undefined) as Promise<Frames>;
}

/**
 * Starts a stream as `runToStream` does, for a handler that answers it with `headers` (SSE's
 * added): the stream is handed back as a plain value (not a promise), so that none of the
 * handler's links waits with it; the last one calls `respond`. A failure before the first event
 * goes through `watch` as any failed request's does.
 */
export function startStream(settings: RunSettings, headers: Record<string, string>, watch: ChatRequestWatch, makeFramer?: MakeFramer): StartingStream {
  return new StreamStart(settings, makeFramer, hasAny(headers) ? headers : noExtraHeaders, watch);
}

/** Shared by the streams that add no headers: a waiting stream need not hold an empty object of its own. */
const noExtraHeaders: Record<string, string> = Object.freeze({});

function hasAny(headers: Record<string, string>): boolean {
  for (const _name in headers) return true;
  return false;
}

/** What the handler makes of a stream's response once it starts, or of its failure before. */
export interface StreamAnswer {
  answered(response: ChatHttpResponse): ChatHttpResponse | Promise<ChatHttpResponse>;
  failed(thrown: unknown): ChatHttpResponse;
}

/** A stream response still waiting for its engine's first event (see `startStream`). */
export interface StartingStream {
  /** The response as `answer` makes it, once the stream starts: one waiting promise for the whole handler. */
  respond(answer: StreamAnswer): Promise<ChatHttpResponse>;
}

/** Whether a handler's value is a stream still waiting for its first event. */
export function isStartingStream(value: unknown): value is StartingStream {
  return value instanceof StreamStart;
}

/**
 * A stream waiting for its engine's first event, or for the keep-alive interval, whichever
 * comes first. One object: a waiting stream holds it, its place in a keep-alive batch, the two
 * reactions on its first step and the one promise its `respond` made, not a closure per outcome.
 * What settled before `respond` is kept until then.
 */
class StreamStart implements StartingStream {
  readonly #settings: RunSettings;
  readonly #run: EngineRun;
  readonly #progress: RunProgress;
  readonly #firstStep: Promise<IteratorResult<ChatEngineEvent>>;
  readonly #makeFramer: MakeFramer | undefined;
  readonly #headers: Record<string, string> | undefined;
  readonly #watch: ChatRequestWatch | undefined;
  #started = false;
  /** Its keep-alive's timer, shared with the streams that began waiting in the same millisecond. */
  #keepAliveBatch: KeepAliveBatch | undefined = undefined;
  /** What settled before `respond`: frames, or a failure. */
  #outcome: { frames: Frames } | { failure: unknown } | undefined = undefined;
  /** The handler's answer (none for `runToStream`: the frames themselves, a failure as a rejection). */
  #answer: StreamAnswer | undefined = undefined;
  /** Resolves `respond`'s promise; its `reject` is not kept (see `rejected`). */
  #resolve: ((value: unknown) => void) | undefined = undefined;

  constructor(settings: RunSettings, makeFramer: MakeFramer | undefined, headers: Record<string, string> | undefined, watch: ChatRequestWatch | undefined) {
    this.#settings = settings;
    this.#makeFramer = makeFramer;
    this.#headers = headers;
    this.#watch = watch;
    const run = new EngineRun(settings, true);
    const progress = new RunProgress(settings.engine, settings.request, settings.prompt);
    this.#run = run;
    this.#progress = progress;
    settings.report.track(progress);
    let firstStep: Promise<IteratorResult<ChatEngineEvent>>;
    try {
      // A native promise even from an engine whose iterator returns another thenable (the same
      // promise, no extra turn, when it already is one).
      firstStep = Promise.resolve(run.iterator.next());
    } catch (error) {
      firstStep = Promise.reject(error);
    }
    this.#firstStep = firstStep;
    const keepAliveMs = settings.keepAliveIntervalMs;
    if (keepAliveMs > 0 && keepAliveMs < Number.POSITIVE_INFINITY) this.#keepAliveBatch = KeepAliveBatch.join(this, keepAliveMs);
    // `then`, not `await`: nothing but this reaction is held while the engine is silent. Bound
    // methods, not arrows: a waiting stream holds no context object for them.
    firstStep.then(this.#first.bind(this), this.#failedFirst.bind(this));
  }

  respond(answer: StreamAnswer): Promise<ChatHttpResponse> {
    return this.start(answer) as Promise<ChatHttpResponse>;
  }

  /** What `respond` and `runToStream` share: the promise of the answer (frames without one). */
  start(answer: StreamAnswer | undefined): Promise<unknown> {
    const outcome = this.#outcome;
    if (outcome === undefined) {
      return new Promise((resolve) => {
        this.#answer = answer;
        this.#resolve = resolve;
      });
    }
    this.#outcome = undefined;
    try {
      return Promise.resolve(this.#answerTo(outcome, answer));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Still silent after the keep-alive interval: the stream starts with a `: keep-alive`. */
  keepAlive(): void {
    // A client that left has nobody to keep alive: the first step settles the request.
    this.#keepAliveBatch = undefined;
    if (this.#settings.client.closed) return;
    this.#started = true;
    this.#deliver(this.#firstStep);
  }

  #first(first: IteratorResult<ChatEngineEvent>): void {
    if (this.#started) return;
    this.#stopKeepAlive();
    this.#deliver(first);
  }

  #failedFirst(thrown: unknown): void {
    // Once started, the frame stream reports the failure as an error frame.
    if (this.#started) return;
    this.#stopKeepAlive();
    let error: unknown;
    try {
      error = this.#fail(thrown);
    } catch (failure) {
      error = failure;
    }
    this.#settle({ failure: error });
  }

  #stopKeepAlive(): void {
    this.#keepAliveBatch?.leave(this);
    this.#keepAliveBatch = undefined;
  }

  #deliver(first: IteratorResult<ChatEngineEvent> | Promise<IteratorResult<ChatEngineEvent>>): void {
    let frames: Frames;
    try {
      frames = streamRunFrames(this.#settings, this.#run, this.#progress, first, this.#makeFramer);
    } catch (error) {
      this.#settle({ failure: error });
      return;
    }
    this.#settle({ frames });
  }

  /** Hands what settled to `respond`'s promise, or keeps it until `respond` is called. */
  #settle(outcome: { frames: Frames } | { failure: unknown }): void {
    const resolve = this.#resolve;
    if (resolve === undefined) {
      this.#outcome = outcome;
      return;
    }
    try {
      resolve(this.#answerTo(outcome, this.#answer));
    } catch (error) {
      resolve(rejected(error));
    }
  }

  /** What `answer` makes of the outcome; without one, the frames themselves, or the failure thrown. */
  #answerTo(outcome: { frames: Frames } | { failure: unknown }, answer: StreamAnswer | undefined): unknown {
    if ('frames' in outcome) {
      const headers = this.#headers;
      if (answer === undefined || headers === undefined) return outcome.frames;
      return answer.answered({ status: 200, headers: sseHeadersWith(headers), events: outcome.frames });
    }
    const error = this.#watch === undefined ? outcome.failure : this.#watch.failed(outcome.failure, this.#settings.client);
    if (answer === undefined) throw error;
    return answer.failed(error);
  }

  /** Settles a run that failed before its stream started, and returns what the client is told. */
  #fail(thrown: unknown): unknown {
    const settings = this.#settings;
    this.#run.stop();
    const error = explainFailure(settings, thrown);
    void settings.report.settled(this.#progress.outcome(failureStatus(settings, error), true));
    return settings.client.closed ? new ClientClosedError(error) : error;
  }
}

/**
 * A promise rejected with `error`, to resolve another with: a waiting stream keeps only its
 * promise's `resolve` (its `reject`, a closure of its own, would be held by every idle stream
 * for the rare failure of an answer).
 */
function rejected(error: unknown): Promise<never> {
  return Promise.reject(error);
}
