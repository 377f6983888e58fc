const encoder = new TextEncoder();
// A frame may start with U+FEFF: it is text of the frame, not a byte order mark to drop.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** UTF-8 bytes `chars` UTF-16 units take at most: three a unit (a surrogate pair, two units, takes four). */
const worstBytes = (chars: number): number => chars * 3;

/** Four-byte alignment, for the sealed log's index after its bytes. */
const alignedTo4 = (bytes: number): number => (bytes + 3) & ~3;

/**
 * `array` when it has room for `needed` bytes, else a copy of its first `used` ones in one
 * twice as long or more (appends stay linear), and `minimum` long at least.
 */
function withRoom(array: Uint8Array<ArrayBuffer>, needed: number, used = array.length, minimum = 0): Uint8Array<ArrayBuffer> {
  if (needed <= array.length) return array;
  const larger = new Uint8Array(Math.max(needed, array.length * 2, minimum));
  larger.set(array.subarray(0, used));
  return larger;
}

/**
 * Where every log's seal encodes a stream that ran whole as strings, before it copies out the
 * exact bytes. Why: one buffer kept for all seals costs one allocation a stream, not a buffer
 * grown by doubling, copied at each growth and trimmed at the end. Each `ArrayBuffer` costs a
 * microsecond or more to make, and what a stream allocates outside the heap brings V8's full
 * collections nearer. It grows to three bytes a character of the pending bound at most (192 KiB
 * by default): a stream past the bound was encoded into its own buffer as it went.
 */
let sealScratch = new Uint8Array(0);

export interface Utf8FrameLogOptions {
  /**
   * The text kept as strings while frames come, in UTF-16 units, before it is encoded: a stream
   * that ends below it is encoded once, at its end. 64 Ki by default.
   */
  maxPendingChars?: number;
}

/**
 * One stream's frames, as UTF-8 bytes outside the JavaScript heap once it ends. Why: a resumable
 * stream's frames are kept for its retention (minutes). As strings they were V8 heap, two bytes a
 * character as soon as a frame held one non-Latin-1 character, so the memory store's default bound
 * (256 Mi characters) was up to 512 MiB of heap: past the heap limit of a small container, and
 * marked by every full collection. Bytes in an `ArrayBuffer` count against no heap limit, are never
 * copied or marked, and take one byte per ASCII character.
 *
 * Frames come in batches (those written between two wake-ups of the stream's readers). While the
 * stream runs, a batch stays the string it was written as, until the pending text passes
 * `maxPendingChars`: most streams end first, and are encoded once, at `seal()`, into one buffer
 * that also holds the index. Each batch is encoded alone: one non-Latin-1 character makes a
 * string two bytes a character, and such a string encodes about ten times slower, so a whole
 * stream joined would pay that for every character. A frame is found by its batch's byte offset
 * and its own UTF-16 offset in the stream's text, which decoding keeps (frames are well-formed
 * JSON text; a lone surrogate would read back as U+FFFD, one unit too).
 */
export class Utf8FrameLog {
  readonly #maxPendingChars: number;
  /** The encoded batches (all but the pending ones): `#size` bytes of `#bytes`. */
  #bytes = new Uint8Array(0);
  #size = 0;
  /** The batches not encoded yet, the last ones, as written. */
  #pending: string[] = [];
  #pendingChars = 0;
  /** Per frame: the UTF-16 offset just past it in the stream's text (an array while frames come, packed once sealed). */
  #charEnds: number[] | Uint32Array = [];
  /** Per batch: the index of its first frame. */
  #batchFirstFrame: number[] | Uint32Array = [];
  /** Per encoded batch: the byte offset where it starts. */
  #batchStart: number[] | Uint32Array = [];
  #sealed = false;

  constructor(options: Utf8FrameLogOptions = {}) {
    this.#maxPendingChars = options.maxPendingChars ?? 64 * 1024;
  }

  get count(): number {
    return this.#charEnds.length;
  }

  /** Appends frames written together; `text` is their concatenation, when the caller made it already. */
  append(frames: readonly string[], text = frames.length === 1 ? frames[0]! : frames.join('')): void {
    if (this.#sealed) throw new Error('A sealed frame log takes no more frames.');
    if (frames.length === 0) return;
    const charEnds = this.#charEnds as number[];
    (this.#batchFirstFrame as number[]).push(charEnds.length);
    let chars = this.#charStart(charEnds.length);
    for (const frame of frames) charEnds.push((chars += frame.length));
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (this.#pendingChars > this.#maxPendingChars) this.#encodePending();
  }

  /** Frames `from` (0-based) to the last, as one string. */
  textFrom(from: number): string {
    const batch = this.#batchOf(from);
    const encoded = this.#batchStart.length;
    const text =
      batch < encoded
        ? decoder.decode(this.#bytes.subarray(this.#batchStart[batch], this.#size)) + this.#pending.join('')
        : this.#pending.slice(batch - encoded).join('');
    const skip = this.#charStart(from) - this.#charStart(this.#batchFirstFrame[batch]!);
    return skip === 0 ? text : text.slice(skip);
  }

  /** Every frame, each as a string (the whole log decoded once). */
  frames(): string[] {
    const text = decoder.decode(this.#bytes.subarray(0, this.#size)) + this.#pending.join('');
    return Array.from(this.#charEnds, (end, index) => text.slice(this.#charStart(index), end));
  }

  /** No frame follows: the log is encoded, and packed with its index into one exact buffer. */
  seal(): void {
    if (this.#sealed) return;
    this.#sealed = true;
    if (this.#size === 0) {
      // Grown without a copy: what an earlier seal left in it is never read.
      sealScratch = withRoom(sealScratch, worstBytes(this.#pendingChars), 0);
      this.#bytes = sealScratch;
    }
    this.#encodePending();
    this.#pack();
  }

  /** The pending batches, each encoded alone, after the bytes there are. */
  #encodePending(): void {
    const batchStart = this.#batchStart as number[];
    for (const text of this.#pending) {
      batchStart.push(this.#size);
      this.#bytes = withRoom(this.#bytes, this.#size + worstBytes(text.length), this.#size, 4096);
      this.#size += encoder.encodeInto(text, this.#bytes.subarray(this.#size)).written;
    }
    this.#pending = [];
    this.#pendingChars = 0;
  }

  /** The bytes, then the three index arrays, in one `ArrayBuffer`: one allocation a sealed stream. */
  #pack(): void {
    const indexAt = alignedTo4(this.#size);
    const buffer = new ArrayBuffer(indexAt + 4 * (this.#charEnds.length + this.#batchFirstFrame.length + this.#batchStart.length));
    const bytes = new Uint8Array(buffer, 0, this.#size);
    bytes.set(this.#bytes.subarray(0, this.#size));
    this.#bytes = bytes;
    let at = indexAt;
    const packed = (values: number[] | Uint32Array): Uint32Array => {
      const view = new Uint32Array(buffer, at, values.length);
      view.set(values);
      at += 4 * values.length;
      return view;
    };
    this.#charEnds = packed(this.#charEnds);
    this.#batchFirstFrame = packed(this.#batchFirstFrame);
    this.#batchStart = packed(this.#batchStart);
  }

  #charStart(index: number): number {
    return index === 0 ? 0 : this.#charEnds[index - 1]!;
  }

  /** The batch holding frame `index`: the last whose first frame is at or before it. */
  #batchOf(index: number): number {
    const firstFrames = this.#batchFirstFrame;
    let low = 0;
    let high = firstFrames.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (firstFrames[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
