/**
 * The text of an open output item, kept as its pieces and joined once when read. Why: `+=` on
 * every delta leaves one rope node per piece alive until the stream ends, and the collector
 * copying those nodes was a third of the stream encoder's CPU time (the CPU guard's
 * `responsesEncoder` case measures it).
 */
export class TextPieces {
  #pieces: string[] = [];

  add(text: string): void {
    this.#pieces.push(text);
  }

  /** The text so far, joined (once: later reads reuse it). */
  text(): string {
    const pieces = this.#pieces;
    if (pieces.length === 0) return '';
    if (pieces.length > 1) this.#pieces = [pieces.join('')];
    return this.#pieces[0]!;
  }
}
