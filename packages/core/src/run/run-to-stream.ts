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
  settings.track?.(() => progress.outcome(200, false));
  let firstStep: Promise<IteratorResult<ChatEngineEvent>>;
  try {
    // A native promise even from an engine whose iterator returns another thenable (the same
    // promise, no extra turn, when it already is one).
    firstStep = Promise.resolve(run.iterator.next());
  } catch (error) {
    firstStep = Promise.reject(error);
  }
  const failed = (thrown: unknown): never => {
    run.stop();
    const error = explainFailure(settings, thrown);
    void settings.onSettled(progress.outcome(failureStatus(settings, error), true));
    throw settings.client.closed ? new ClientClosedError(error) : error;
  };
  const keepAliveMs = settings.keepAliveIntervalMs;
  // `then`, not `await`: nothing but this reaction is held while the engine is silent.
  if (!(keepAliveMs > 0 && keepAliveMs < Number.POSITIVE_INFINITY)) return firstStep.then((first) => streamRunFrames(settings, run, progress, first, makeFramer), failed);
  return new Promise((resolve, reject) => {
    let started = false;
    const timer = setTimeout(() => {
      // A client that left has nobody to keep alive: the first step settles the request.
      if (settings.client.closed) return;
      started = true;
      resolve(streamRunFrames(settings, run, progress, firstStep, makeFramer));
    }, keepAliveMs);
    firstStep.then(
      (first) => {
        if (started) return;
        clearTimeout(timer);
        resolve(streamRunFrames(settings, run, progress, first, makeFramer));
      },
      (thrown: unknown) => {
        // Once started, the frame stream reports the failure as an error frame.
        if (started) return;
        clearTimeout(timer);
        try {
          failed(thrown);
        } catch (error) {
          reject(error);
        }
      },
    );
  });
}
