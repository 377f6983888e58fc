import { idField } from '../sse/sse-frame-builders.js';
import { encodeErrorFrame, resumeRetryField, splitFrames, streamError } from './stream-frames.js';
import type { StreamFrame, StreamMeta, StreamStore } from './stream-store.js';

/**
 * The one writer of a resumable stream: pulls the run's frames whether or not anyone reads
 * them, numbers each (`id: <seq>`, the first also carrying `retry:`) and appends them to the
 * store, where the client and every resume read them (decisions §4.7).
 */
export class StreamProducer {
  readonly id: string;
  readonly meta: StreamMeta;
  /** Followers reading this stream on this instance (the original client included). */
  followers = 0;
  readonly #store: StreamStore;
  #frames: AsyncIterator<string> | undefined;
  #cancelled = false;
  readonly #onEnded: (producer: StreamProducer) => void;
  #seq = 0;
  #ended = false;
  #unlistenCancel: (() => void) | undefined;
  readonly #runTimeoutMs: number;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  /** The run's time is up: it ends as soon as it has no reader here (a reader keeps it, as a plain stream's client does). */
  #overdue = false;

  readonly #pending: Promise<AsyncIterator<string>>;

  /**
   * `frames` may still be pending (the engine was silent past the keep-alive interval, so the
   * stream started without it): a failure of it then becomes the stream's error frame.
   */
  constructor(
    store: StreamStore,
    id: string,
    meta: StreamMeta,
    frames: AsyncIterator<string> | Promise<AsyncIterator<string>>,
    onEnded: (producer: StreamProducer) => void,
    runTimeoutMs = 0,
  ) {
    this.#store = store;
    this.#runTimeoutMs = runTimeoutMs;
    this.id = id;
    this.meta = meta;
    this.#onEnded = onEnded;
    if (frames instanceof Promise) this.#pending = frames;
    else {
      this.#frames = frames;
      this.#pending = Promise.resolve(frames);
    }
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Starts pulling the run; resolves once the store can show the stream to any instance (see `StreamStore.create`). */
  start(): void | Promise<void> {
    const created = this.#store.create(this.id, this.meta);
    this.#unlistenCancel = this.#store.onCancel(this.id, () => this.cancel());
    const timeoutMs = this.#runTimeoutMs;
    if (timeoutMs > 0 && timeoutMs < Number.POSITIVE_INFINITY) {
      this.#deadline = setTimeout(() => {
        this.#overdue = true;
        this.endIfOverdue();
      }, timeoutMs);
      // The deadline alone must not keep a process alive that is otherwise done.
      (this.#deadline as { unref?: () => void }).unref?.();
    }
    if (this.#frames !== undefined) {
      this.#pull();
      return created;
    }
    this.#pending.then((frames) => {
      this.#frames = frames;
      // Cancelled while the engine was still silent: stop it now that it can be stopped.
      if (this.#cancelled) void Promise.resolve(frames.return?.()).catch(() => undefined);
      else this.#pull();
    }, this.#onError);
    return created;
  }

  /** Stops generation (the engine is aborted, usage settled for what it produced); followers read a `cancelled` error frame, then the end. */
  cancel(): void {
    this.#stop(streamError('cancelled', 'The stream was cancelled: POST .../cancel was called for it.'));
  }

  /**
   * Ends the run with an `upstream_timeout` error frame once it is past its run timeout and
   * nobody reads it here: a run without a client is bounded in time as well as in tokens.
   */
  endIfOverdue(): void {
    if (!this.#overdue || this.followers > 0) return;
    const limit = this.#runTimeoutMs % 1000 === 0 ? `${this.#runTimeoutMs / 1000} s` : `${this.#runTimeoutMs} ms`;
    this.#stop(streamError('upstream_timeout', `The run did not finish within its time limit (${limit}) and no client was reading it, so it was stopped; the frames before this one are what it produced.`));
  }

  /** Aborts the engine (its run settles usage for what it produced) and ends the stream with `error`'s frame. */
  #stop(error: unknown): void {
    if (this.#ended) return;
    this.#cancelled = true;
    if (this.#frames !== undefined) void Promise.resolve(this.#frames.return?.()).catch(() => undefined);
    this.#write(encodeErrorFrame(this.meta.kind, error));
    this.#finish();
  }

  readonly #pull = (): void => {
    this.#frames!.next().then(this.#onStep, this.#onError);
  };

  readonly #onStep = (step: IteratorResult<string>): void => {
    if (this.#ended) return;
    if (step.done === true) {
      this.#finish();
      return;
    }
    this.#write(step.value);
    this.#pull();
  };

  readonly #onError = (error: unknown): void => {
    if (this.#ended) return;
    this.#write(encodeErrorFrame(this.meta.kind, error));
    this.#finish();
  };

  #write(text: string): void {
    const entries: StreamFrame[] = [];
    // Most events are one frame: split only text that holds several.
    const frames = text.indexOf('\n\n') === text.length - 2 ? [text] : splitFrames(text);
    for (const frame of frames) {
      // Keep-alive comments carry no id and are not stored: each follower sends its own.
      if (frame.charCodeAt(0) === 58 /* ':' */) continue;
      const seq = ++this.#seq;
      entries.push({ seq, frame: seq === 1 ? resumeRetryField + idField('1') + frame : idField(String(seq)) + frame });
    }
    if (entries.length > 0) this.#store.append(this.id, entries);
  }

  #finish(): void {
    this.#ended = true;
    clearTimeout(this.#deadline);
    this.#unlistenCancel?.();
    this.#store.end(this.id);
    this.#onEnded(this);
  }
}
