/** What the frame writer needs of a destination: a `ServerResponse`, a socket, or a plugin's transform. */
export interface FrameDestinationLike {
  readonly destroyed?: boolean;
  write(chunk: string): boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off?(event: 'drain' | 'close', listener: () => void): unknown;
  /** Present when `compression` is installed (or on zlib streams): pushes buffered bytes out now. */
  flush?(): void;
}

/** Resolves on `drain`, or on `close` (a destination that went away never drains). */
function drained(destination: FrameDestinationLike): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      destination.off?.('drain', done);
      destination.off?.('close', done);
      resolve();
    };
    destination.once('drain', done);
    destination.once('close', done);
  });
}

/**
 * Writes SSE frames to a destination frame by frame: it waits for `drain` when the destination
 * is full (so a slow reader stops the engine rather than filling memory) and calls `flush()`
 * after each frame, because compression would otherwise hold frames back. Resolves `true` once
 * every frame was written, `false` if the destination went away first; rejects with what the
 * frames throw. Ending the destination and stopping the frames are the caller's.
 *
 * @example
 * const complete = await writeFrames(res, response.events[Symbol.asyncIterator]());
 */
export async function writeFrames(destination: FrameDestinationLike, frames: AsyncIterator<string>): Promise<boolean> {
  for (let step = await frames.next(); !step.done; step = await frames.next()) {
    if (destination.destroyed === true) return false;
    const fits = destination.write(step.value);
    destination.flush?.();
    if (!fits) await drained(destination);
  }
  return true;
}
