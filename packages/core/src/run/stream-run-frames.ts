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
 * How a stream's engine events become the frames of one wire (chat completions, the Responses
 * API): everything else about a stream (keep-alive, backpressure, stall, abort, settlement) is
 * the run's, the same for every wire.
 */
export interface RunFramer {
  /** The frames of one engine event as one string ('' for none). */
  framesOf(event: ChatEngineEvent): string;
  /** The frames telling the client how the stream failed after its first byte. */
  failure(error: unknown): string;
  /**
   * Called with the engine's finish once the run is settled, before its frames go out; a
   * promise holds them back (the Responses API stores the response before saying it is done).
   */
  beforeLast?(event: ChatEngineEvent): void | Promise<void>;
  /** The stream ended, however it ended (after its last frames, a failure, a cancel or a departure). */
  ended?(): void;
}

/** A chat completion stream's framer, in the settings' stream format. */
function chatFramer(settings: RunSettings): RunFramer {
  const encoder = createStreamFrameEncoder(settings.streamFormat, {
    id: settings.completionId ?? settings.generateId('completion'),
    created: settings.createdSeconds,
    model: settings.request.model,
  });
  return { framesOf: createEventFramer(settings, encoder), failure: (error) => encoder.error(toErrorEnvelope(error)) };
}

/**
 * The frames of a stream: from the engine's first event, or (still pending after the
 * keep-alive interval) from a first `: keep-alive`. A chat completion's unless `framer` says.
 */
export function streamRunFrames(
  settings: RunSettings,
  run: EngineRun,
  progress: RunProgress,
  first: IteratorResult<ChatEngineEvent> | Promise<IteratorResult<ChatEngineEvent>>,
  makeFramer?: (settings: RunSettings) => RunFramer,
): AsyncIterableIterator<string> {
  settings.report.streamStarted();
  const framer = makeFramer === undefined ? chatFramer(settings) : makeFramer(settings);
  const hooks = runFrameHooks(settings, run, progress, framer);
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
  framer: RunFramer,
): FrameStreamHooks<ChatEngineEvent> {
  const { framesOf } = framer;
  let settled = false;
  const settle = (interrupted: boolean): void | Promise<void> => {
    if (settled) return;
    settled = true;
    return settings.report.settled(progress.outcome(200, interrupted));
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
      const settling = settle(false);
      if (framer.beforeLast === undefined) return settling;
      return settling === undefined ? framer.beforeLast(event) : settling.then(() => framer.beforeLast!(event));
    },
    onFirstFrame() {
      settings.report.firstToken();
    },
    onFinished() {
      run.markFinished();
      void settle(false);
    },
    failure(error) {
      void settle(true);
      // The client that left cannot read an error frame; anyone else gets one.
      return settings.client.closed ? undefined : framer.failure(explainFailure(settings, error));
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
      framer.ended?.();
      // Also reached when a host stops before reading one frame (the client left right
      // after the headers).
      void settle(true);
      run.stop();
    },
  };
}
