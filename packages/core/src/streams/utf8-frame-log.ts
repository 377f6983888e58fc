const encoder = new TextEncoder();
// A frame may start with U+FEFF: it is text of the frame, not a byte order mark to drop.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

type Grown = Uint8Array<ArrayBuffer> | Uint32Array<ArrayBuffer>;

/**
 * `array` when it has room for `needed` elements, else a copy of its first `used` ones in one
 * twice as long or more (appends stay linear), and `minimum` long at least.
 */
function withRoom<T extends Grown>(array: T, needed: number, used = array.length, minimum = 0): T {
  if (needed <= array.length) return array;
  const larger = new (array.constructor as new (length: number) => T)(Math.max(needed, array.length * 2, minimum));
  larger.set(array.subarray(0, used));
  return larger;
}

/**
 * One stream's frames as UTF-8 bytes outside the JavaScript heap. Why: a resumable stream's
 * frames are kept for its retention (minutes). As strings they were V8 heap, two bytes a
 * character as soon as a frame held one non-Latin-1 character, so the memory store's default
 * bound (256 Mi characters) was up to 512 MiB of heap: past the heap limit of a small
 * container, and marked by every full collection. Bytes in an `ArrayBuffer` count against no
 * heap limit, are never copied or marked, and take one byte per ASCII character.
 *
 * Frames come in batches (those written between two wake-ups of the stream's readers), each
 * encoded as one text: one encoder call per batch, not per frame. A frame is found by its
 * batch's byte offset and its own UTF-16 offset in the stream's text, which decoding keeps
 * (frames are well-formed JSON text; a lone surrogate would read back as U+FFFD, one unit too).
 */
export class Utf8FrameLog {
  #bytes = new Uint8Array(0);
  #size = 0;
  /** Per frame: the UTF-16 offset just past it in the stream's text. */
  #charEnds = new Uint32Array(64);
  #count = 0;
  /** Per batch: the index of its first frame, and the byte offset where it starts. */
  #batchFirstFrame = new Uint32Array(16);
  #batchStart = new Uint32Array(16);
  #batches = 0;

  get count(): number {
    return this.#count;
  }

  /** Appends frames written together; `text` is their concatenation, when the caller made it already. */
  append(frames: readonly string[], text = frames.length === 1 ? frames[0]! : frames.join('')): void {
    if (frames.length === 0) return;
    this.#batchFirstFrame = withRoom(this.#batchFirstFrame, this.#batches + 1);
    this.#batchStart = withRoom(this.#batchStart, this.#batches + 1);
    this.#batchFirstFrame[this.#batches] = this.#count;
    this.#batchStart[this.#batches++] = this.#size;
    // Encoded into the room there is, grown while some text is left: room for the worst case
    // (three bytes a UTF-16 unit) would be three times what ASCII text takes.
    for (let read = 0; ; ) {
      const encoded = encoder.encodeInto(read === 0 ? text : text.slice(read), this.#bytes.subarray(this.#size));
      this.#size += encoded.written;
      read += encoded.read;
      if (read === text.length) break;
      const left = text.length - read;
      this.#bytes = withRoom(this.#bytes, this.#size + left + (left >> 3), this.#size, 4096);
    }
    this.#charEnds = withRoom(this.#charEnds, this.#count + frames.length);
    let chars = this.#charStart(this.#count);
    for (const frame of frames) this.#charEnds[this.#count++] = chars += frame.length;
  }

  /** Frames `from` (0-based) to the last, as one string. */
  textFrom(from: number): string {
    const batch = this.#batchOf(from);
    const text = decoder.decode(this.#bytes.subarray(this.#batchStart[batch], this.#size));
    const skip = this.#charStart(from) - this.#charStart(this.#batchFirstFrame[batch]!);
    return skip === 0 ? text : text.slice(skip);
  }

  /** Every frame, each as a string (the whole log decoded once). */
  frames(): string[] {
    const text = decoder.decode(this.#bytes.subarray(0, this.#size));
    return Array.from(this.#charEnds.subarray(0, this.#count), (end, index) => text.slice(this.#charStart(index), end));
  }

  /** No frame follows: the spare room the log grew into is given back, unless it is little. */
  seal(): void {
    if (this.#bytes.length - this.#size > this.#size >> 3) this.#bytes = this.#bytes.slice(0, this.#size);
    this.#charEnds = this.#charEnds.slice(0, this.#count);
    this.#batchFirstFrame = this.#batchFirstFrame.slice(0, this.#batches);
    this.#batchStart = this.#batchStart.slice(0, this.#batches);
  }

  #charStart(index: number): number {
    return index === 0 ? 0 : this.#charEnds[index - 1]!;
  }

  /** The batch holding frame `index`: the last whose first frame is at or before it. */
  #batchOf(index: number): number {
    let low = 0;
    let high = this.#batches - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#batchFirstFrame[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
