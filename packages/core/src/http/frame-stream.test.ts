import { describe, expect, it, vi } from 'vitest';
import { guardStream, isStreamStalledError, onStreamStalled } from './guard-stream.js';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

async function* frames(count: number, delayMs = 0): AsyncGenerator<string> {
  for (let index = 0; index < count; index++) {
    if (delayMs > 0) await sleep(delayMs);
    yield `frame ${index}\n\n`;
  }
}

function hooks() {
  return { onStalled: vi.fn(), onEnded: vi.fn() };
}

describe('guardStream', () => {
  it('should give up on a stream whose consumer stops pulling, and tell the host', async () => {
    const spy = hooks();
    const stream = guardStream(frames(100), 40, spy);
    const closeConnection = vi.fn();
    onStreamStalled(stream, closeConnection);
    expect(await stream.next()).toEqual({ done: false, value: 'frame 0\n\n' });
    await sleep(120);
    expect(spy.onStalled).toHaveBeenCalledOnce();
    expect(spy.onEnded).toHaveBeenCalledOnce();
    expect(closeConnection).toHaveBeenCalledOnce();
    const error = await stream.next().catch((thrown: unknown) => thrown);
    expect(isStreamStalledError(error)).toBe(true);
  });

  it('should count a slow producer as no stall: only the consumer can stall', async () => {
    const spy = hooks();
    const stream = guardStream(frames(3, 60), 30, spy);
    const read: string[] = [];
    for await (const frame of stream) read.push(frame);
    expect(read).toHaveLength(3);
    expect(spy.onStalled).not.toHaveBeenCalled();
    expect(spy.onEnded).toHaveBeenCalledOnce();
  });

  it('should clean up when the host stops before the first pull', async () => {
    const spy = hooks();
    const stream = guardStream(frames(3), 1000, spy);
    await stream.return?.();
    await stream.return?.();
    expect(spy.onEnded).toHaveBeenCalledOnce();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('should never stall with a timeout of 0', async () => {
    const spy = hooks();
    const stream = guardStream(frames(2), 0, spy);
    await stream.next();
    await sleep(30);
    expect(spy.onStalled).not.toHaveBeenCalled();
    expect(onStreamStalled(frames(1), () => undefined)).toBeTypeOf('function');
  });
});
