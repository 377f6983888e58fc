/*
 * Small helpers the composers share for writing readable English from data.
 */

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`. @internal */
export function formatList(items: readonly string[], quote = true): string {
  const shown = items.map((item) => (quote ? `"${item}"` : item));
  if (shown.length <= 1) return shown[0] ?? '';
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** `1 word`, `2 words`. @internal */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}

/** Ends a sentence that finishes on a quotation, without doubling its punctuation. @internal */
export function quoted(prefix: string, quote: string): string {
  return `${prefix} "${quote}"${/[.?!…]$/u.test(quote) ? '' : '.'}`;
}

/** At most `limit` characters (code points), with `…` when cut. @internal */
export function clip(text: string, limit: number): string {
  const characters = [...text.replace(/\s+/gu, ' ').trim()];
  return characters.length > limit ? `${characters.slice(0, limit).join('').trimEnd()}…` : characters.join('');
}
