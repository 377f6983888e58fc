import { once } from 'node:events';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { FramesReadable } from './frames-readable.js';

const frame = (index: number) => `data: ${index} ${'x'.repeat(60)}\n\n`;
const allFrames = (count: number) => Array.from({ length: count }, (_, index) => frame(index)).join('');
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A frame source that counts what was pulled from it and whether it was released (`return()`). */
function frameSource(options: { count?: number; failAfter?: number } = {}) {
  const state = { pulled: 0, released: false };
  async function* frames() {
    try {
      for (let index = 0; index < (options.count ?? Infinity); index++) {
        // A turn of the event loop between frames, as tokens from an engine come.
        await nextTurn();
        if (index === options.failAfter) throw new Error('the engine broke');
        state.pulled++;
        yield frame(index);
      }
    } finally {
      state.released = true;
    }
  }
  return { state, frames: frames() };
}

/** Waits until the source stops being pulled (several event-loop turns without a pull). */
async function settled(state: { pulled: number }): Promise<number> {
  for (let before = -1; before !== state.pulled; ) {
    before = state.pulled;
    for (let turn = 0; turn < 20; turn++) await nextTurn();
  }
  return state.pulled;
}

/** A real Writable whose consumer reads nothing until `release()`: each write waits for it. */
function heldDestination() {
  const chunks: string[] = [];
  const waiting: (() => void)[] = [];
  let open = false;
  const destination = new Writable({
    highWaterMark: 128,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      if (open) callback();
      else waiting.push(() => callback());
    },
  });
  const release = () => {
    open = true;
    for (const write of waiting.splice(0)) write();
  };
  return { destination, chunks, release };
}

describe('FramesReadable, read as a stream', () => {
  it('should stop pulling frames once its read-ahead is full while the consumer is not reading, and give every frame in order', async () => {
    const { state, frames } = frameSource({ count: 60 });
    const readable = new FramesReadable(frames);
    const received: string[] = [];
    readable.on('data', (chunk: string) => {
      received.push(chunk);
      if (received.length === 3) readable.pause();
    });
    const pulledWhilePaused = await settled(state);
    expect(received).toHaveLength(3);
    // Only the read-ahead was pulled past what was read: 16 frames, object mode counts frames.
    expect(readable.readableLength).toBe(readable.readableHighWaterMark);
    expect(pulledWhilePaused).toBe(3 + readable.readableHighWaterMark);

    readable.resume();
    await finished(readable);
    expect(received.join('')).toBe(allFrames(60));
    expect(state.released).toBe(true);
  });

  it('should release the frame source when destroyed', async () => {
    const { state, frames } = frameSource();
    const readable = new FramesReadable(frames);
    readable.once('data', () => readable.destroy());
    await once(readable, 'close');
    expect(state.released).toBe(true);
    const pulled = state.pulled;
    expect(await settled(state)).toBe(pulled);
  });

  it('should fail with what the frames throw, after the frames before', async () => {
    const { state, frames } = frameSource({ failAfter: 2 });
    const readable = new FramesReadable(frames);
    const received: string[] = [];
    readable.on('data', (chunk: string) => received.push(chunk));
    await expect(finished(readable)).rejects.toThrow('the engine broke');
    expect(received.join('')).toBe(allFrames(2));
    expect(readable.destroyed).toBe(true);
    expect(state.released).toBe(true);
  });
});

describe('FramesReadable, piped', () => {
  it('should stop pulling frames while the destination is full and not drained, then write every frame in order and end it', async () => {
    const { state, frames } = frameSource({ count: 200 });
    const readable = new FramesReadable(frames);
    const { destination, chunks, release } = heldDestination();
    readable.pipe(destination);
    const pulledWhileHeld = await settled(state);
    // A few frames fill the 128-byte destination; the other ~190 stay unpulled.
    expect(pulledWhileHeld).toBeLessThan(10);
    expect(destination.writableNeedDrain).toBe(true);

    release();
    await finished(destination);
    expect(chunks.join('')).toBe(allFrames(200));
    expect(readable.readableEnded).toBe(true);
    expect(state.released).toBe(true);
  });

  it('should release the frame source when the destination goes away', async () => {
    const { state, frames } = frameSource();
    const readable = new FramesReadable(frames);
    const { destination } = heldDestination();
    readable.pipe(destination);
    await settled(state);
    destination.destroy();
    await once(readable, 'close');
    expect(state.released).toBe(true);
    expect(readable.readableEnded).toBe(false);
  });

  it('should release the frame source when destroyed itself', async () => {
    const { state, frames } = frameSource();
    const readable = new FramesReadable(frames);
    const { destination } = heldDestination();
    readable.pipe(destination);
    await settled(state);
    readable.destroy();
    await once(readable, 'close');
    expect(state.released).toBe(true);
  });

  it('should fail with what the frames throw, after writing the frames before', async () => {
    const { state, frames } = frameSource({ failAfter: 3 });
    const readable = new FramesReadable(frames);
    const { destination, chunks, release } = heldDestination();
    release();
    readable.pipe(destination);
    const [error] = (await once(readable, 'error')) as [Error];
    expect(error.message).toBe('the engine broke');
    expect(chunks.join('')).toBe(allFrames(3));
    expect(destination.writableEnded).toBe(false);
    expect(state.released).toBe(true);
  });
});
