/**
 * Where resumable streams live (decisions §4.7): an ordered log of encoded SSE frames per
 * stream, written by the one run that produces it and read by any number of followers, on
 * this instance or (with a shared store) another. The store knows nothing of chat
 * completions: a frame is opaque text with its sequence number, so the Responses API's
 * events (`sequence_number`, `starting_after`) fit the same log.
 */
export interface StreamMeta {
  /** Who may read the stream: the creator's organisation and key kind (`org_1:live`). */
  owner: string;
  /** What its frames are, so a reader can write frames of its own (`stream_lost`) in the same format: `chat:quantum`, `chat:openai`, ... */
  kind: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** One SSE frame of a stream, as sent (its `id:` line included), and its sequence number (1, 2, 3, ...). */
export interface StreamFrame {
  seq: number;
  frame: string;
}

/**
 * What a follower reads: the text of one or more consecutive frames, the sequence number of
 * the last of them, and whether the stream ends with it (`text` may then be empty: the
 * follower had everything already).
 */
export interface StreamChunk {
  text: string;
  lastSeq: number;
  last: boolean;
}

export type StreamState = 'running' | 'ended';

export interface StreamInfo {
  meta: StreamMeta;
  state: StreamState;
  /** The sequence number of the last frame written so far. */
  lastSeq: number;
}

export interface StreamFollowOptions {
  /** Read only frames after this sequence number (0: from the start). */
  after: number;
}

/**
 * A stream store. Writes never wait on a round trip: `create`, `append` and `end` queue what
 * they write (a shared store sends it in one batch per tick) and keep its order.
 */
export interface StreamStore {
  /** Starts a stream produced by this instance. */
  create(id: string, meta: StreamMeta): void;
  /** Appends frames (consecutive sequence numbers, following those already written). */
  append(id: string, frames: readonly StreamFrame[]): void;
  /** No frame follows; the stream is kept for the store's retention, then forgotten. */
  end(id: string): void;
  /** The stream, or undefined when it is unknown or expired. */
  describe(id: string): Promise<StreamInfo | undefined>;
  /**
   * The frames after `after`, then live frames until the stream ends. The iterator rejects
   * with a `StreamLostError` when the stream's producer stopped writing without ending it
   * (its instance died), and ends at once when `return()` is called.
   */
  follow(id: string, options: StreamFollowOptions): AsyncIterator<StreamChunk>;
  /** Every frame written so far, in order (the result of a finished stream is built from them). */
  readAll(id: string): Promise<StreamFrame[] | undefined>;
  /** Asks the stream's producer, wherever it runs, to stop; resolves once asked. */
  requestCancel(id: string): Promise<void>;
  /** Called when someone asks to cancel a stream this instance produces; returns a function that stops listening. */
  onCancel(id: string, listener: () => void): () => void;
  /** Releases connections and timers. */
  close?(): Promise<void>;
}

/** A followed stream's producer stopped writing without ending it: its instance died (decisions §4.7). */
export class StreamLostError extends Error {
  constructor(id: string) {
    super(`The stream ${id} was lost: the instance producing it stopped before its end.`);
    this.name = 'StreamLostError';
  }
}
