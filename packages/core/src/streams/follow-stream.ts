import type { ClientConnection } from '../contract/chat-http-types.js';
import { FrameStream } from '../run/frame-stream.js';
import { encodeErrorFrame, streamError } from './stream-frames.js';
import { StreamLostError, type StreamChunk, type StreamStore } from './stream-store.js';

export interface FollowStreamOptions {
  store: StreamStore;
  id: string;
  /** Frames after this sequence number (0: from the start). */
  after: number;
  /** The stream's kind (`StreamMeta.kind`): the format of an error frame written here. */
  kind: string;
  connection: ClientConnection;
  keepAliveMs: number;
  stallTimeoutMs: number;
  /** The follower ended, however it ended (runs once). */
  onEnded?: () => void;
  /** Start at once, with a keep-alive unless frames are at hand: the client already waited the keep-alive interval. */
  startNow?: boolean;
}

const keepAliveFrame = ': keep-alive\n\n';
const usable = (milliseconds: number) => milliseconds > 0 && milliseconds < Number.POSITIVE_INFINITY;

/** A store's failure as an error frame: a lost producer is `stream_lost`, anything else as it is. */
function failureOf(error: unknown): unknown {
  return error instanceof StreamLostError ? streamError('stream_lost', error.message) : error;
}

/**
 * The response frames of one reader of a resumable stream: the stored frames after `after`,
 * then live ones, to the stream's own end. Its keep-alive and stall guard are this reader's
 * (a reader that stops reading is disconnected; the run goes on). Resolves once the first
 * frames are at hand, or after the keep-alive interval with a keep-alive first (as a new
 * stream does).
 */
export function followStream(options: FollowStreamOptions): Promise<AsyncIterableIterator<string>> {
  const { store, id, kind, connection } = options;
  const source = store.follow(id, { after: options.after });
  let unwatch: (() => void) | undefined;
  const build = (first: IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>>): AsyncIterableIterator<string> => {
    const frames = new FrameStream<StreamChunk>(
      source,
      first,
      {
        encode: (chunk) => chunk.text,
        isLast: (chunk) => chunk.last,
        onFinished() {},
        failure: (error) => (connection.closed ? undefined : encodeErrorFrame(kind, failureOf(error))),
        onStalled() {
          try {
            connection.destroy();
          } catch {
            // A host whose destroy throws must not take the timer down.
          }
        },
        onEnded() {
          unwatch?.();
          void Promise.resolve(source.return?.()).catch(() => undefined);
          options.onEnded?.();
        },
      },
      { keepAliveMs: options.keepAliveMs, keepAliveFrame, stallTimeoutMs: options.stallTimeoutMs, endedEarly: () => new StreamLostError(id) },
    );
    // The client left: its reader stops (the host may never pull again to find out).
    unwatch = connection.onClose(() => void frames.return());
    return frames;
  };
  let firstStep: Promise<IteratorResult<StreamChunk>>;
  try {
    firstStep = Promise.resolve(source.next());
  } catch (error) {
    firstStep = Promise.reject(error);
  }
  const keepAliveMs = options.keepAliveMs;
  if (options.startNow === true) return Promise.resolve(build(firstStep));
  if (!usable(keepAliveMs)) return firstStep.then(build, () => build(firstStep));
  return new Promise((resolve) => {
    let started = false;
    const timer = setTimeout(() => {
      started = true;
      resolve(build(firstStep));
    }, keepAliveMs);
    firstStep.then(
      (first) => {
        if (started) return;
        clearTimeout(timer);
        resolve(build(first));
      },
      () => {
        if (started) return;
        clearTimeout(timer);
        // The frame stream reports the failure as an error frame after a keep-alive.
        resolve(build(firstStep));
      },
    );
  });
}
