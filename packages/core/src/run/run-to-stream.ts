import { ClientClosedError } from '../contract/client-connection.js';
import type { ChatEngineEvent } from '../engine/chat-engine.js';
import { EngineRun } from './engine-run.js';
import { explainFailure, failureStatus } from './run-failure.js';
import { RunProgress } from './run-progress.js';
import type { RunSettings } from './run-settings.js';
import { streamRunFrames, type RunFramer } from './stream-run-frames.js';

/**
 * Starts a stream (decisions §4): resolves with its SSE frames once the engine produced its
 * first event, so that an early failure is still a real HTTP error. An engine still silent
 * after the keep-alive interval does not hold the response back any longer: the stream starts
 * with a `: keep-alive` (proxies cut silent connections), and a failure after that is an
 * `error` frame, the stream ending without `[DONE]`. `makeFramer` gives another wire's frames
 * (the Responses API's); chat completions' by default.
 */
export function runToStream(settings: RunSettings, makeFramer?: (settings: RunSettings) => RunFramer): Promise<AsyncIterableIterator<string>> {
  const run = new EngineRun(settings, true);
  const progress = new RunProgress(settings.engine, settings.request, settings.prompt);
  settings.report.track(progress);
  let firstStep: Promise<IteratorResult<ChatEngineEvent>>;
  try {
    // A native promise even from an engine whose iterator returns another thenable (the same
    // promise, no extra turn, when it already is one).
    firstStep = Promise.resolve(run.iterator.next());
  } catch (error) {
    firstStep = Promise.reject(error);
  }
  const start = new StreamStart(settings, run, progress, firstStep, makeFramer);
  const keepAliveMs = settings.keepAliveIntervalMs;
  // `then`, not `await`: nothing but this reaction is held while the engine is silent.
  if (!(keepAliveMs > 0 && keepAliveMs < Number.POSITIVE_INFINITY)) return firstStep.then((first) => start.frames(first), (thrown: unknown) => start.fail(thrown));
  return new Promise((resolve, reject) => start.wait(keepAliveMs, resolve, reject));
}

type Resolve = (frames: AsyncIterableIterator<string>) => void;

/**
 * A stream waiting for its engine's first event, or for the keep-alive interval, whichever
 * comes first. One object, its timer given it as an argument: a waiting stream holds it and the
 * two reactions on its first step, not a closure per outcome.
 */
class StreamStart {
  readonly #settings: RunSettings;
  readonly #run: EngineRun;
  readonly #progress: RunProgress;
  readonly #firstStep: Promise<IteratorResult<ChatEngineEvent>>;
  readonly #makeFramer: ((settings: RunSettings) => RunFramer) | undefined;
  #started = false;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #resolve: Resolve | undefined = undefined;
  #reject: ((reason: unknown) => void) | undefined = undefined;

  constructor(settings: RunSettings, run: EngineRun, progress: RunProgress, firstStep: Promise<IteratorResult<ChatEngineEvent>>, makeFramer: ((settings: RunSettings) => RunFramer) | undefined) {
    this.#settings = settings;
    this.#run = run;
    this.#progress = progress;
    this.#firstStep = firstStep;
    this.#makeFramer = makeFramer;
  }

  frames(first: IteratorResult<ChatEngineEvent> | Promise<IteratorResult<ChatEngineEvent>>): AsyncIterableIterator<string> {
    return streamRunFrames(this.#settings, this.#run, this.#progress, first, this.#makeFramer);
  }

  /** Settles a run that failed before its stream started, and throws what the client is told. */
  fail(thrown: unknown): never {
    const settings = this.#settings;
    this.#run.stop();
    const error = explainFailure(settings, thrown);
    void settings.report.settled(this.#progress.outcome(failureStatus(settings, error), true));
    throw settings.client.closed ? new ClientClosedError(error) : error;
  }

  wait(keepAliveMs: number, resolve: Resolve, reject: (reason: unknown) => void): void {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(startWithKeepAlive, keepAliveMs, this);
    this.#firstStep.then(
      (first) => this.#first(first),
      (thrown: unknown) => this.#failedFirst(thrown),
    );
  }

  /** Still silent after the keep-alive interval: the stream starts with a `: keep-alive`. */
  keepAlive(): void {
    // A client that left has nobody to keep alive: the first step settles the request.
    if (this.#settings.client.closed) return;
    this.#started = true;
    this.#resolve!(this.frames(this.#firstStep));
  }

  #first(first: IteratorResult<ChatEngineEvent>): void {
    if (this.#started) return;
    clearTimeout(this.#timer);
    this.#resolve!(this.frames(first));
  }

  #failedFirst(thrown: unknown): void {
    // Once started, the frame stream reports the failure as an error frame.
    if (this.#started) return;
    clearTimeout(this.#timer);
    try {
      this.fail(thrown);
    } catch (error) {
      this.#reject!(error);
    }
  }
}

function startWithKeepAlive(start: StreamStart): void {
  start.keepAlive();
}
