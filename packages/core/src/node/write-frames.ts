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

// The node entry runs where `process.nextTick` exists (Node, Bun, Deno); the core's types have no node globals.
declare const process: { nextTick?(callback: () => void): void } | undefined;
const nextTick = typeof process === 'object' && typeof process?.nextTick === 'function' ? process.nextTick.bind(process) : undefined;

/** Past this many characters a burst is written at once rather than held for the rest of it. */
const maxBurstCharacters = 64 * 1024;

/**
 * Frames that come in one burst, written as one string: an upstream read that brings fifty
 * chunks becomes fifty frames within one run of microtasks, and each `write()` of its own cost
 * a write request, a callback and an entry in the socket's `writev` (about a fifth of a relayed
 * chunk's CPU time). Frames are held until the next tick, which comes once that run is over,
 * so a lone frame still leaves in the same turn of the event loop.
 */
class BurstWriter {
  readonly #destination: FrameDestinationLike;
  #held = '';
  #scheduled = false;
  /**
   * Set when a write did not fit, until the destination drains (watched from that moment, so a
   * `drain` that comes while the caller awaits its next frame is not missed).
   */
  #draining: Promise<void> | undefined = undefined;
  readonly #flush = () => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(destination: FrameDestinationLike) {
    this.#destination = destination;
  }

  add(frame: string): void {
    if (nextTick === undefined) {
      this.#write(frame);
      return;
    }
    this.#held += frame;
    if (this.#held.length >= maxBurstCharacters) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      nextTick(this.#flush);
    }
  }

  /** Writes what is held now. */
  flush(): void {
    if (this.#held === '') return;
    const held = this.#held;
    this.#held = '';
    if (this.#destination.destroyed !== true) this.#write(held);
  }

  /** Resolves once the destination has room again (at once if it has). */
  room(): Promise<void> | undefined {
    return this.#draining;
  }

  #write(text: string): void {
    const fits = this.#destination.write(text);
    this.#destination.flush?.();
    if (!fits && this.#draining === undefined) {
      this.#draining = drained(this.#destination).then(() => {
        this.#draining = undefined;
      });
    }
  }
}

/**
 * Writes SSE frames to a destination: it waits for `drain` when the destination is full (so a
 * slow reader stops the engine rather than filling memory), writes the frames of one burst as
 * one string (see `BurstWriter`), and calls `flush()` after each write, because compression
 * would otherwise hold frames back. Resolves `true` once every frame was written, `false` if
 * the destination went away first; rejects with what the frames throw (after writing the
 * frames before). Ending the destination and stopping the frames are the caller's.
 *
 * @example
 * const complete = await writeFrames(res, response.events[Symbol.asyncIterator]());
 */
export async function writeFrames(destination: FrameDestinationLike, frames: AsyncIterator<string>): Promise<boolean> {
  const writer = new BurstWriter(destination);
  try {
    for (let step = await frames.next(); !step.done; step = await frames.next()) {
      if (destination.destroyed === true) return false;
      writer.add(step.value);
      const room = writer.room();
      if (room !== undefined) await room;
    }
    return destination.destroyed !== true;
  } finally {
    writer.flush();
  }
}
