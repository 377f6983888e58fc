import { describe, expect, it, vi } from 'vitest';
import { eventsInBatches } from '../engine/events-in-batches.js';
import { FrameStream, type FrameStreamOptions } from './frame-stream.js';
import { StreamStalledError } from './stream-stall.js';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

type TestEvent = { text: string; last?: boolean } | { fail: string };

/** An engine of `count` events, the last one marked, each after `delayMs`. */
async function* events(count: number, delayMs = 0): AsyncGenerator<TestEvent> {
  for (let index = 0; index < count; index++) {
    if (delayMs > 0) await sleep(delayMs);
    yield { text: `frame ${index}`, last: index === count - 1 };
  }
}

function hooks() {
  return {
    encode: vi.fn((event: TestEvent) => {
      if ('fail' in event) throw new Error(event.fail);
      return event.text === '' ? '' : `${event.text}\n\n`;
    }),
    isLast: (event: TestEvent) => 'last' in event && event.last === true,
    onFinished: vi.fn(),
    failure: vi.fn((error: unknown) => `error: ${(error as Error).message}\n\n`),
    onStalled: vi.fn(),
    onEnded: vi.fn(),
  };
}

function options(overrides: Partial<FrameStreamOptions> = {}): FrameStreamOptions {
  return { keepAliveMs: 0, keepAliveFrame: ': keep-alive\n\n', stallTimeoutMs: 0, endedEarly: () => new Error('ended early'), ...overrides };
}

async function start(source: AsyncIterableIterator<TestEvent>, spy: ReturnType<typeof hooks>, settings: FrameStreamOptions) {
  const first = await source.next();
  return new FrameStream(source, first, spy, settings);
}

async function readAll(stream: AsyncIterable<string>): Promise<string[]> {
  const frames: string[] = [];
  for await (const frame of stream) frames.push(frame);
  return frames;
}

describe('FrameStream', () => {
  it('should hand out every frame in order, then end once', async () => {
    const spy = hooks();
    const stream = await start(events(4), spy, options());
    expect(await readAll(stream)).toEqual(['frame 0\n\n', 'frame 1\n\n', 'frame 2\n\n', 'frame 3\n\n']);
    expect(spy.onFinished).toHaveBeenCalledOnce();
    expect(spy.onEnded).toHaveBeenCalledOnce();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('should serve pulls made before the previous one settled, in order', async () => {
    const stream = await start(events(3, 5), hooks(), options());
    const pulls = [stream.next(), stream.next(), stream.next(), stream.next()];
    expect(await Promise.all(pulls)).toEqual([
      { done: false, value: 'frame 0\n\n' },
      { done: false, value: 'frame 1\n\n' },
      { done: false, value: 'frame 2\n\n' },
      { done: true, value: undefined },
    ]);
  });

  it('should skip events that make no frame', async () => {
    async function* source(): AsyncGenerator<TestEvent> {
      yield { text: '' };
      yield { text: 'a' };
      yield { text: '' };
      yield { text: 'b', last: true };
    }
    expect(await readAll(await start(source(), hooks(), options()))).toEqual(['a\n\n', 'b\n\n']);
  });

  it('should end with a failure frame when the engine throws or stops without its last event', async () => {
    async function* throwing(): AsyncGenerator<TestEvent> {
      yield { text: 'a' };
      throw new Error('engine broke');
    }
    const spy = hooks();
    expect(await readAll(await start(throwing(), spy, options()))).toEqual(['a\n\n', 'error: engine broke\n\n']);
    expect(spy.onEnded).toHaveBeenCalledOnce();
    expect(spy.onFinished).not.toHaveBeenCalled();

    async function* short(): AsyncGenerator<TestEvent> {
      yield { text: 'a' };
    }
    expect(await readAll(await start(short(), hooks(), options()))).toEqual(['a\n\n', 'error: ended early\n\n']);
  });

  it('should turn an encoding error into a failure frame, not an unhandled rejection', async () => {
    async function* source(): AsyncGenerator<TestEvent> {
      yield { text: 'a' };
      await sleep(1);
      yield { fail: 'cannot encode' };
    }
    expect(await readAll(await start(source(), hooks(), options()))).toEqual(['a\n\n', 'error: cannot encode\n\n']);
  });

  it('should end without a frame when the failure has none (the client left)', async () => {
    async function* source(): AsyncGenerator<TestEvent> {
      yield { text: 'a' };
      throw new Error('aborted');
    }
    const spy = hooks();
    spy.failure.mockReturnValue(undefined as unknown as string);
    expect(await readAll(await start(source(), spy, options()))).toEqual(['a\n\n']);
  });

  it('should send keep-alives while the engine is silent and the consumer waits', async () => {
    const stream = await start(events(2, 120), hooks(), options({ keepAliveMs: 30 }));
    const frames = await readAll(stream);
    expect(frames.at(0)).toBe('frame 0\n\n');
    expect(frames.at(-1)).toBe('frame 1\n\n');
    expect(frames.filter((frame) => frame === ': keep-alive\n\n').length).toBeGreaterThanOrEqual(2);
  });

  it('should send no keep-alive when the engine answers in time', async () => {
    const frames = await readAll(await start(events(50), hooks(), options({ keepAliveMs: 200 })));
    expect(frames).not.toContain(': keep-alive\n\n');
  });

  it('should give up on a stream whose consumer stops pulling, and tell its owner', async () => {
    vi.useFakeTimers();
    try {
      const spy = hooks();
      const stream = await start(events(100), spy, options({ stallTimeoutMs: 40 }));
      expect(await stream.next()).toEqual({ done: false, value: 'frame 0\n\n' });
      await vi.advanceTimersByTimeAsync(39);
      expect(spy.onStalled).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(2);
      expect(spy.onStalled).toHaveBeenCalledOnce();
      expect(spy.onStalled.mock.calls[0]![0]).toBeInstanceOf(StreamStalledError);
      expect(spy.onEnded).toHaveBeenCalledOnce();
      const error = await stream.next().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StreamStalledError);
    } finally {
      vi.useRealTimers();
    }
  });

  it('should count a slow producer as no stall: only the consumer can stall', async () => {
    const spy = hooks();
    const frames = await readAll(await start(events(3, 60), spy, options({ stallTimeoutMs: 30 })));
    expect(frames).toHaveLength(3);
    expect(spy.onStalled).not.toHaveBeenCalled();
    expect(spy.onEnded).toHaveBeenCalledOnce();
  });

  it('should clean up when the host stops before the first pull, and answer a waiting pull', async () => {
    const spy = hooks();
    const stream = await start(events(3), spy, options({ stallTimeoutMs: 1000 }));
    await stream.return();
    await stream.return();
    expect(spy.onEnded).toHaveBeenCalledOnce();
    expect(await stream.next()).toEqual({ done: true, value: undefined });

    const slow = await start(events(3, 200), hooks(), options());
    await slow.next();
    const pending = slow.next();
    await slow.return();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('should never stall with a timeout of 0', async () => {
    const spy = hooks();
    const stream = await start(events(2), spy, options());
    await stream.next();
    await sleep(30);
    expect(spy.onStalled).not.toHaveBeenCalled();
  });
});

describe('FrameStream over an engine that hands over its ready events', () => {
  /** An engine of the given batches (see `eventsInBatches`), each event `{ text, last }`. */
  const batched = (...batches: TestEvent[][]) =>
    eventsInBatches(
      (async function* () {
        for (const batch of batches) yield batch;
      })(),
    );
  const text = (...names: string[]) => names.map((name) => ({ text: name }));

  it("should hand out the frames of one batch as one pull, and the last event's in a pull of its own", async () => {
    const spy = hooks();
    const stream = await start(batched([...text('a', 'b', 'c')], [...text('d'), { text: 'e', last: true }]), spy, options());
    expect(await readAll(stream)).toEqual(['a\n\nb\n\nc\n\n', 'd\n\n', 'e\n\n']);
    expect(spy.encode).toHaveBeenCalledTimes(5);
    expect(spy.onFinished).toHaveBeenCalledOnce();
    expect(spy.onEnded).toHaveBeenCalledOnce();
  });

  it('should hold the last frames back until beforeLast resolves, the frames before it already out', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const spy = { ...hooks(), beforeLast: vi.fn(() => held) };
    const stream = await start(batched([...text('a', 'b'), { text: 'end', last: true }]), spy, options());
    expect(await stream.next()).toEqual({ done: false, value: 'a\n\nb\n\n' });
    const last = stream.next();
    await sleep(5);
    expect(spy.beforeLast).toHaveBeenCalledOnce();
    expect(spy.encode).toHaveBeenCalledTimes(2);
    release();
    expect(await last).toEqual({ done: false, value: 'end\n\n' });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('should send the frames before a failing event, then the failure frame, in the same pull', async () => {
    const spy = hooks();
    const stream = await start(batched([...text('a', 'b'), { fail: 'bad event' }, ...text('never')]), spy, options());
    expect(await readAll(stream)).toEqual(['a\n\nb\n\nerror: bad event\n\n']);
    expect(spy.onEnded).toHaveBeenCalledOnce();
  });

  it('should send the frames of the last batch, then report an engine that ended without its last event', async () => {
    const stream = await start(batched([...text('a', 'b')]), hooks(), options());
    expect(await readAll(stream)).toEqual(['a\n\nb\n\n', 'error: ended early\n\n']);
  });

  it('should skip events that make no frame inside a batch', async () => {
    const stream = await start(batched([...text('', 'a', '', 'b')], [{ text: '', last: true }]), hooks(), options());
    expect(await readAll(stream)).toEqual(['a\n\nb\n\n']);
  });
});

describe('FrameStream gathering a long burst', () => {
  it('should hand out a burst past 64 Ki characters in several pulls, every frame once and in order', async () => {
    const long = 'x'.repeat(10_000);
    const burst: TestEvent[] = Array.from({ length: 20 }, (_, index) => ({ text: `${index}:${long}` }));
    const stream = await start(
      eventsInBatches(
        (async function* () {
          yield [...burst, { text: 'end', last: true }];
        })(),
      ),
      hooks(),
      options(),
    );
    const pulls = await readAll(stream);
    expect(pulls.length).toBeGreaterThan(3);
    expect(pulls.every((pull) => pull.length < 64 * 1024 + 10_100)).toBe(true);
    expect(pulls.join('')).toBe([...burst.map((event) => `${(event as { text: string }).text}\n\n`), 'end\n\n'].join(''));
  });
});
