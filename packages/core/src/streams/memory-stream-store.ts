import type { StreamChunk, StreamFrame, StreamFollowOptions, StreamInfo, StreamMeta, StreamStore } from './stream-store.js';
import { Utf8FrameLog } from './utf8-frame-log.js';

export interface MemoryStreamStoreOptions {
  /** How long a stream is kept after its end; 10 minutes by default. */
  retentionMs?: number;
  /**
   * The frames of ended streams kept at most, in UTF-16 code units (about bytes for the
   * ASCII of JSON frames); past it the streams that ended first are forgotten early. 256 Mi by default.
   */
  maxRetainedChars?: number;
  /** Milliseconds since the epoch; injected by tests. */
  now?: () => number;
}

const done: IteratorResult<StreamChunk> = { done: true, value: undefined };

/**
 * One stream's frames and the followers waiting for the next ones. The frames appended since
 * the followers were last woken are strings, which a follower at the live edge (the usual one)
 * takes as they are; once woken, they go to a `Utf8FrameLog` as one batch, which moves them off
 * the JavaScript heap by the stream's end: a retained stream is then a few small objects for the
 * collector, whatever its length.
 */
class MemoryStream {
  readonly meta: StreamMeta;
  readonly log = new Utf8FrameLog();
  /** The frames after those in the log, as appended. */
  recent: string[] = [];
  /** `recent` joined, once a follower asked for all of it (the log's batch is then encoded from it). */
  #recentText: string | undefined;
  ended = false;
  chars = 0;
  waiters: Array<() => void> = [];
  cancelListeners: Array<() => void> = [];

  constructor(meta: StreamMeta) {
    this.meta = meta;
  }

  get count(): number {
    return this.log.count + this.recent.length;
  }

  /** The frames after the first `from`, as one string. */
  from(from: number): string {
    const index = from - this.log.count;
    if (index > 0) return this.recent.slice(index).join('');
    if (this.recent.length === 0) return this.log.textFrom(from);
    this.#recentText ??= this.recent.length === 1 ? this.recent[0]! : this.recent.join('');
    return index === 0 ? this.#recentText : this.log.textFrom(from) + this.#recentText;
  }

  /** Every frame so far. */
  frames(): string[] {
    return [...this.log.frames(), ...this.recent];
  }

  push(frame: string): void {
    this.recent.push(frame);
    this.#recentText = undefined;
    this.chars += frame.length;
  }

  /** The end: the followers are woken at once, and the log keeps no spare room. */
  seal(): void {
    this.ended = true;
    this.#flush();
    this.log.seal();
  }

  /** Into the log, as one batch: it takes them off the heap by the stream's end, or sooner for a long stream. */
  #releaseRecent(): void {
    if (this.recent.length === 0) return;
    this.log.append(this.recent, this.#recentText);
    this.recent = [];
    this.#recentText = undefined;
  }

  /** The pending wake-up, if any. */
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Wakes the followers on the next timer turn, not at once: the frames an engine produces in
   * the meantime go to them in one read (and one socket write) instead of one each.
   */
  wake(): void {
    // Nobody waits at the live edge: whoever reads these frames later reads them from the log.
    if (this.waiters.length === 0) this.#releaseRecent();
    else this.#wakeTimer ??= setTimeout(this.#flush, 0);
  }

  readonly #flush = (): void => {
    // Woken at once (the end), a pending timer would still hold this stream, its frames
    // included, until it fires: long enough for a young-generation collection to promote them.
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    const waiters = this.waiters;
    if (waiters.length > 0) {
      this.waiters = [];
      for (const waiter of waiters) waiter();
    }
    this.#releaseRecent();
  };
}

/** Reads one stream from a position: everything at hand in one chunk, then waits for more. */
class MemoryFollower implements AsyncIterator<StreamChunk> {
  readonly #stream: MemoryStream;
  #position: number;
  #closed = false;
  /** The waiting `next()`'s resolver, while one waits (a reader pulls one step at a time). */
  #resolve: ((step: IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>>) => void) | undefined;

  constructor(stream: MemoryStream, after: number) {
    this.#stream = stream;
    this.#position = Math.max(0, after);
  }

  next(): Promise<IteratorResult<StreamChunk>> {
    const waiting = this.#resolve;
    // A pull while another waits (the iterator protocol allows it) gets the step after that one's.
    if (waiting !== undefined) return new Promise((resolve) => (this.#resolve = (step) => (waiting(step), resolve(this.next()))));
    const step = this.#take();
    if (step !== undefined) return Promise.resolve(step);
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.#stream.waiters.push(this.#wake);
    });
  }

  /**
   * The stream's wake-up for this reader: one function for the reader's life, with the waiting
   * resolver in a field. Why: a closure made for each wait and kept on the reader made V8's
   * young-generation collections keep every text read since the last one, until a full
   * collection (measured: 6.8 MB over 100 resumable streams, promoted; none now).
   */
  readonly #wake = (): void => {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    this.#resolve = undefined;
    // Resolved with the step itself, not with another promise: two turns of the microtask queue less per frame.
    resolve(this.#take() ?? this.next());
  };

  /** What is at hand: the frames after the position, the end, or `undefined` (wait). */
  #take(): IteratorResult<StreamChunk> | undefined {
    if (this.#closed) return done;
    const stream = this.#stream;
    const count = stream.count;
    if (this.#position < count) {
      const text = stream.from(this.#position);
      this.#position = count;
      if (stream.ended) this.#closed = true;
      return { done: false, value: { text, lastSeq: count, last: stream.ended } };
    }
    if (stream.ended) {
      this.#closed = true;
      return { done: false, value: { text: '', lastSeq: count, last: true } };
    }
    return undefined;
  }

  return(): Promise<IteratorResult<StreamChunk>> {
    this.#closed = true;
    if (this.#resolve !== undefined) {
      const waiters = this.#stream.waiters;
      const index = waiters.indexOf(this.#wake);
      if (index !== -1) waiters.splice(index, 1);
      this.#wake();
    }
    return Promise.resolve(done);
  }
}

export interface MemoryStreamStore extends StreamStore {
  /** Known at once: there is no other instance to tell. */
  create(id: string, meta: StreamMeta): void;
  /** Whether this store holds the stream (a shared store serves its own streams from here). */
  has(id: string): boolean;
  /** Streams held, running and ended, and the characters of their frames (for metrics and tests). */
  size(): { streams: number; chars: number };
}

/**
 * Streams in this process's memory: enough for one instance (decisions §4.7). Ended streams
 * are forgotten after the retention, or earlier, oldest first, past `maxRetainedChars`; no
 * timer runs, each write sweeps what expired.
 *
 * @example
 * const handler = createChatHandler({ engine, accessControl, streams: { store: createMemoryStreamStore({ retentionMs: 60_000 }) } });
 */
export function createMemoryStreamStore(options: MemoryStreamStoreOptions = {}): MemoryStreamStore {
  const retentionMs = options.retentionMs ?? 600_000;
  const maxRetainedChars = options.maxRetainedChars ?? 256 * 1024 * 1024;
  const now = options.now ?? Date.now;
  const streams = new Map<string, MemoryStream>();
  /** Ended streams in the order they ended (the retention is one length for all: also the order they expire). */
  const endedQueue: Array<{ id: string; expiresAt: number }> = [];
  let endedHead = 0;
  let retainedChars = 0;
  let totalChars = 0;
  const expiries = new Map<string, number>();

  function forget(id: string): void {
    const stream = streams.get(id);
    if (stream === undefined) return;
    streams.delete(id);
    expiries.delete(id);
    totalChars -= stream.chars;
    if (stream.ended) retainedChars -= stream.chars;
  }

  function sweep(): void {
    const time = now();
    while (endedHead < endedQueue.length) {
      const head = endedQueue[endedHead]!;
      if (head.expiresAt > time && retainedChars <= maxRetainedChars) break;
      forget(head.id);
      endedHead++;
    }
    // Drop the consumed part of the queue now and then, not per shift.
    if (endedHead > 1024 && endedHead * 2 > endedQueue.length) {
      endedQueue.splice(0, endedHead);
      endedHead = 0;
    }
  }

  function live(id: string): MemoryStream | undefined {
    const stream = streams.get(id);
    if (stream === undefined) return undefined;
    // Read-time check too: a quiet store sweeps nothing, but an expired stream is gone all the same.
    if (stream.ended && now() >= (expiries.get(id) ?? Number.POSITIVE_INFINITY)) return undefined;
    return stream;
  }

  return {
    create(id, meta) {
      sweep();
      streams.set(id, new MemoryStream(meta));
    },
    append(id, frames: readonly StreamFrame[]) {
      const stream = streams.get(id);
      if (stream === undefined || stream.ended) return;
      for (const { frame } of frames) {
        stream.push(frame);
        totalChars += frame.length;
      }
      stream.wake();
    },
    end(id) {
      const stream = streams.get(id);
      if (stream === undefined || stream.ended) return;
      stream.seal();
      stream.cancelListeners = [];
      retainedChars += stream.chars;
      const expiresAt = now() + retentionMs;
      expiries.set(id, expiresAt);
      endedQueue.push({ id, expiresAt });
      sweep();
    },
    async describe(id): Promise<StreamInfo | undefined> {
      const stream = live(id);
      if (stream === undefined) return undefined;
      return { meta: stream.meta, state: stream.ended ? 'ended' : 'running', lastSeq: stream.count };
    },
    follow(id, followOptions: StreamFollowOptions) {
      const stream = live(id);
      if (stream === undefined) return { next: () => Promise.resolve(done), return: () => Promise.resolve(done) };
      return new MemoryFollower(stream, followOptions.after);
    },
    async readAll(id) {
      const stream = live(id);
      if (stream === undefined) return undefined;
      return stream.frames().map((frame, index) => ({ seq: index + 1, frame }));
    },
    async requestCancel(id) {
      const stream = live(id);
      if (stream === undefined || stream.ended) return;
      for (const listener of stream.cancelListeners.splice(0)) listener();
    },
    onCancel(id, listener) {
      const stream = streams.get(id);
      if (stream === undefined || stream.ended) return () => undefined;
      stream.cancelListeners.push(listener);
      return () => {
        const index = stream.cancelListeners.indexOf(listener);
        if (index !== -1) stream.cancelListeners.splice(index, 1);
      };
    },
    has(id) {
      return live(id) !== undefined;
    },
    size() {
      return { streams: streams.size, chars: totalChars };
    },
  };
}
