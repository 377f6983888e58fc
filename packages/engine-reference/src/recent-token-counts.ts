/** Texts longer than this are not remembered (the prompt counter's slices are about 16 K characters). */
const maxRememberedLength = 16_384;

/**
 * The token counts of recently counted texts, so that a text seen again is not tokenised again:
 * every request resends its conversation (a system prompt, the earlier turns, each message's
 * role), and a deterministic engine answers the same prompt with the same text. Bounded by
 * entries and by characters, the oldest forgotten first, so a flood of distinct texts holds at
 * most `maxCharacters` of them. A count depends on the text alone, so remembering one never
 * changes a figure.
 */
export class RecentTokenCounts {
  readonly #counts = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #maxCharacters: number;
  #characters = 0;

  constructor(maxEntries = 4096, maxCharacters = 4 * 1024 * 1024) {
    this.#maxEntries = maxEntries;
    this.#maxCharacters = maxCharacters;
  }

  get(text: string): number | undefined {
    return this.#counts.get(text);
  }

  remember(text: string, tokens: number): void {
    if (text.length > maxRememberedLength || this.#counts.has(text)) return;
    this.#counts.set(text, tokens);
    this.#characters += text.length;
    while (this.#counts.size > this.#maxEntries || this.#characters > this.#maxCharacters) {
      const oldest = this.#counts.keys().next().value!;
      this.#counts.delete(oldest);
      this.#characters -= oldest.length;
    }
  }

  /** How many texts, and how many characters of them, are remembered. */
  get size(): { entries: number; characters: number } {
    return { entries: this.#counts.size, characters: this.#characters };
  }
}
