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
  readonly #frames: AsyncIterator<string>;
  readonly #onEnded: (producer: StreamProducer) => void;
  #seq = 0;
  #ended = false;
  #unlistenCancel: (() => void) | undefined;

  constructor(store: StreamStore, id: string, meta: StreamMeta, frames: AsyncIterator<string>, onEnded: (producer: StreamProducer) => void) {
    this.#store = store;
    this.id = id;
    this.meta = meta;
    this.#frames = frames;
    this.#onEnded = onEnded;
  }

  get ended(): boolean {
    return this.#ended;
  }

  start(): void {
    this.#store.create(this.id, this.meta);
    this.#unlistenCancel = this.#store.onCancel(this.id, () => this.cancel());
    this.#pull();
  }

  /** Stops generation (the engine is aborted, usage settled for what it produced); followers read a `cancelled` error frame, then the end. */
  cancel(): void {
    if (this.#ended) return;
    void Promise.resolve(this.#frames.return?.()).catch(() => undefined);
    this.#write(encodeErrorFrame(this.meta.kind, streamError('cancelled', 'The stream was cancelled: POST .../cancel was called for it.')));
    this.#finish();
  }

  readonly #pull = (): void => {
    this.#frames.next().then(this.#onStep, this.#onError);
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
