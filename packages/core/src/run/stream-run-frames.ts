import type { ChatEngineEvent } from '../engine/chat-engine.js';
import { toErrorEnvelope } from '../errors/to-error-envelope.js';
import { encodeSseComment } from '../sse/encode-sse-event.js';
import { createStreamFrameEncoder } from '../wire/stream-frame-encoder.js';
import type { EngineRun } from './engine-run.js';
import { createEventFramer } from './event-frames.js';
import { FrameStream, type FrameStreamHooks } from './frame-stream.js';
import { engineEndedEarly, explainFailure } from './run-failure.js';
import type { RunProgress } from './run-progress.js';
import type { RunSettings } from './run-settings.js';

/** The comment a silent stream sends now and then: proxies cut connections that say nothing. */
const keepAliveFrame = encodeSseComment('keep-alive');

/**
 * The frames of a stream: from the engine's first event, or (still pending after the
 * keep-alive interval) from a first `: keep-alive`.
 */
export function streamRunFrames(
  settings: RunSettings,
  run: EngineRun,
  progress: RunProgress,
  first: IteratorResult<ChatEngineEvent> | Promise<IteratorResult<ChatEngineEvent>>,
): AsyncIterableIterator<string> {
  settings.onStreamStart?.();
  const encoder = createStreamFrameEncoder(settings.streamFormat, {
    id: settings.completionId ?? settings.generateId('completion'),
    created: settings.createdSeconds,
    model: settings.request.model,
  });
  const hooks = runFrameHooks(settings, run, progress, encoder.error, createEventFramer(settings, encoder));
  return new FrameStream(run.iterator, first, hooks, {
    keepAliveMs: settings.keepAliveIntervalMs,
    keepAliveFrame,
    stallTimeoutMs: settings.stallTimeoutMs ?? 0,
    endedEarly: engineEndedEarly,
  });
}

/** How a run's frame stream counts, settles (once) and stops the engine, however it ends. */
function runFrameHooks(
  settings: RunSettings,
  run: EngineRun,
  progress: RunProgress,
  errorFrame: ReturnType<typeof createStreamFrameEncoder>['error'],
  framesOf: (event: ChatEngineEvent) => string,
): FrameStreamHooks<ChatEngineEvent> {
  let settled = false;
  const settle = (interrupted: boolean): void | Promise<void> => {
    if (settled) return;
    settled = true;
    return settings.onSettled(progress.outcome(200, interrupted));
  };

  // A client that leaves settles the request at once, even while nobody pulls a frame (the
  // host waits for `drain`, or has not started reading the stream yet).
  const onClientGone = () => {
    void settle(true);
    run.stop();
  };
  const unwatchClient = settings.client.onClose(onClientGone);

  return {
    encode(event) {
      progress.observe(event);
      return framesOf(event);
    },
    isLast: (event) => event.type === 'finish',
    beforeLast(event) {
      // The finish, usage and [DONE] frames acknowledge the answer: they wait for its settle.
      progress.observe(event);
      run.markFinished();
      return settle(false);
    },
    onFirstFrame: settings.onFirstToken,
    onFinished() {
      run.markFinished();
      void settle(false);
    },
    failure(error) {
      void settle(true);
      // The client that left cannot read an error frame; anyone else gets one.
      return settings.client.closed ? undefined : errorFrame(toErrorEnvelope(explainFailure(settings, error)));
    },
    onStalled(error) {
      void settle(true);
      run.stop(error);
      // The host may be parked on a full socket: only closing the connection frees it.
      try {
        settings.client.destroy();
      } catch {
        // A host whose destroy throws must not take the timer (and the process) down.
      }
    },
    onEnded() {
      unwatchClient();
      // Also reached when a host stops before reading one frame (the client left right
      // after the headers).
      void settle(true);
      run.stop();
    },
  };
}
