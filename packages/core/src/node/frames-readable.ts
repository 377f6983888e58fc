// The one file of the Node bridge that needs Node itself: a host hands this Readable to its
// framework (Fastify's `reply.send`), so it must be Node's own class, not a structural shape.
import { Readable } from 'node:stream';
import { writeFrames, type FrameDestinationLike } from './write-frames.js';

/**
 * The core's SSE frames as a Node `Readable`, for hosts whose framework sends streams itself
 * (Fastify's `reply.send`). Read as a stream, it pulls one frame per `_read` and pushes strings
 * as they are (object mode: no `Buffer` copy per frame). Piped, which is what Fastify and
 * compression plugins do with it, it writes each frame straight to the destination with
 * backpressure, skipping the `push` → `data` → `write` relay of the generic `pipe`, and emits
 * `end` once the last frame is written. `Readable.from` plus the
 * generic `pipe` were about a sixth of the adapter's CPU per streamed chunk. Destroyed (the
 * client left, or the consumer gave up), it stops the frames (`return()`), and so the engine.
 *
 * @example
 * return reply.send(new FramesReadable(response.events));
 */
export class FramesReadable extends Readable {
  readonly #frames: AsyncIterator<string>;
  #pulling = false;
  #piped = false;

  constructor(frames: AsyncIterable<string>) {
    // 16 frames of read-ahead at most (object mode counts frames, not bytes).
    super({ objectMode: true, highWaterMark: 16 });
    this.#frames = frames[Symbol.asyncIterator]();
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    // Only the first consumer gets the direct path; anything else reads through the stream.
    if (this.#piped || this.#pulling || this.readableFlowing !== null) return super.pipe(destination, options);
    this.#piped = true;
    destination.emit('pipe', this);
    void this.#pump(destination as FrameDestinationLike & NodeJS.WritableStream, options?.end !== false);
    return destination;
  }

  async #pump(destination: FrameDestinationLike & NodeJS.WritableStream, end: boolean): Promise<void> {
    try {
      // A destination that went away (the client left) ends this side, and so the engine.
      if (!(await writeFrames(destination, this.#frames))) this.destroy();
      if (this.destroyed) return;
      if (end) destination.end();
      // Ends this side too, so whoever watches it (Fastify's end-of-stream) sees `end`.
      this.push(null);
      this.resume();
    } catch (error) {
      this.destroy(error as Error);
    }
  }

  override _read(): void {
    if (this.#pulling || this.#piped) return;
    this.#pulling = true;
    this.#frames.next().then(this.#onFrame, this.#onError);
  }

  readonly #onFrame = (step: IteratorResult<string>): void => {
    this.#pulling = false;
    if (this.destroyed) return;
    if (step.done) this.push(null);
    else if (this.push(step.value)) this._read();
  };

  readonly #onError = (error: unknown): void => {
    this.#pulling = false;
    this.destroy(error as Error);
  };

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Stops the engine when the client left or the stream failed; a no-op after a normal end.
    Promise.resolve(this.#frames.return?.()).then(
      () => callback(error),
      () => callback(error),
    );
  }
}
