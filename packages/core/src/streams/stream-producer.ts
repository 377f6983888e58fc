import { encodeErrorFrame, retryField, splitFrames, streamError } from './stream-frames.js';
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

  readonly #pending: Promise<AsyncIterator<string>>;

  /**
   * `frames` may still be pending (the engine was silent past the keep-alive interval, so the
   * stream started without it): a failure of it then becomes the stream's error frame.
   */
  constructor(store: StreamStore, id: string, meta: StreamMeta, frames: AsyncIterator<string> | Promise<AsyncIterator<string>>, onEnded: (producer: StreamProducer) => void) {
    this.#store = store;
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

  start(): void {
    this.#store.create(this.id, this.meta);
    this.#unlistenCancel = this.#store.onCancel(this.id, () => this.cancel());
    if (this.#frames !== undefined) {
      this.#pull();
      return;
    }
    this.#pending.then((frames) => {
      this.#frames = frames;
      // Cancelled while the engine was still silent: stop it now that it can be stopped.
      if (this.#cancelled) void Promise.resolve(frames.return?.()).catch(() => undefined);
      else this.#pull();
    }, this.#onError);
  }

  /** Stops generation (the engine is aborted, usage settled for what it produced); followers read a `cancelled` error frame, then the end. */
  cancel(): void {
    if (this.#ended) return;
    this.#cancelled = true;
    if (this.#frames !== undefined) void Promise.resolve(this.#frames.return?.()).catch(() => undefined);
    this.#write(encodeErrorFrame(this.meta.kind, streamError('cancelled', 'The stream was cancelled: POST .../cancel was called for it.')));
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
      entries.push({ seq, frame: seq === 1 ? `${retryField}id: 1\n${frame}` : `id: ${seq}\n${frame}` });
    }
    if (entries.length > 0) this.#store.append(this.id, entries);
  }

  #finish(): void {
    this.#ended = true;
    this.#unlistenCancel?.();
    this.#store.end(this.id);
    this.#onEnded(this);
  }
}
