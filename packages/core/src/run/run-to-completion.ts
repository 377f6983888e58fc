import { ClientClosedError, clientClosedStatus } from '../contract/client-connection.js';
import type { ChatEngineEvent } from '../engine/chat-engine.js';
import { hasReadyEvents } from '../engine/events-in-batches.js';
import { CompletionParts } from './completion-parts.js';
import { EngineRun } from './engine-run.js';
import { engineEndedEarly, explainFailure, failureStatus } from './run-failure.js';
import { RunProgress } from './run-progress.js';
import type { RunSettings } from './run-settings.js';

type FinishEvent = Extract<ChatEngineEvent, { type: 'finish' }>;

/** Runs the engine to its end and builds the non-streaming body (decisions §3). */
export async function runToCompletion(settings: RunSettings): Promise<string> {
  // Drawn first, as in a stream, so ids come in the same order either way.
  const completionId = settings.generateId('completion');
  const parts = new CompletionParts(settings.generateId, settings.request.logprobs !== undefined);
  const finish = await runToFinish(settings, parts);
  const { request } = settings;
  return parts.encode({ id: completionId, created: settings.createdSeconds, model: request.model, showReasoning: request.reasoning }, finish);
}

/** What gathers a non-streaming answer's events before its finish (chat's parts, a response's output). */
export interface RunCollector {
  add(event: Exclude<ChatEngineEvent, FinishEvent>): unknown;
}

/**
 * Runs the engine to its finish, each event before it given to `collector`, and settles the
 * run (a durable settle is awaited: the answer is acknowledged only after it). Any API's
 * non-streaming answer is built from what it collected and the finish event.
 */
export async function runToFinish(settings: RunSettings, collector: RunCollector): Promise<FinishEvent> {
  const run = new EngineRun(settings, false);
  const progress = new RunProgress(settings.engine, settings.request, settings.prompt);
  settings.report.track(progress);
  const finish = await collectUntilFinish(settings, run, progress, collector);
  // An engine that finished although its client had left: the answer reaches nobody.
  const left = settings.client.closed;
  const acknowledged = settings.report.settled(progress.outcome(left ? clientClosedStatus : 200, left));
  if (acknowledged !== undefined) await acknowledged;
  return finish;
}

/**
 * Pulls the engine's events into `parts` up to its finish (the events its iterator already
 * holds without a promise each: see `eventsInBatches`); a failure settles the run and throws.
 */
async function collectUntilFinish(settings: RunSettings, run: EngineRun, progress: RunProgress, parts: RunCollector): Promise<FinishEvent> {
  const { iterator } = run;
  const readySource = hasReadyEvents(iterator) ? iterator : undefined;
  try {
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      for (let event: ChatEngineEvent | undefined = step.value; event !== undefined; event = readySource?.takeReady()) {
        progress.observe(event);
        if (event.type !== 'finish') {
          parts.add(event);
          continue;
        }
        run.markFinished();
        return event;
      }
    }
    throw engineEndedEarly();
  } catch (thrown) {
    const error = explainFailure(settings, thrown);
    // A failed run acknowledges nothing: its settle runs beside the error.
    void settings.report.settled(progress.outcome(failureStatus(settings, error), true));
    throw settings.client.closed ? new ClientClosedError(error) : error;
  } finally {
    run.stop();
  }
}
