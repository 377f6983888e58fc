/**
 * A chunk shape learned from one parsed chunk, to read the chunks after it without
 * `JSON.parse`. A server writes every chunk of a stream with the same envelope (id, model,
 * created, choices, finish_reason…); only a few strings change from one chunk to the next.
 *
 * The template is the chunk's own JSON text cut at its variable strings (the holes). A chunk
 * that has exactly the template's text around its holes, and a valid JSON string in each hole,
 * parses to the template's chunk with those strings in place: the template's chunk is updated
 * in place and read instead of a parse. Anything else (another shape, other whitespace, a
 * changed id, a hole that is not a valid string) does not match and is parsed as before, so
 * malformed chunks fail exactly as they did.
 *
 * @internal
 */
export interface ChunkTemplate {
  /** The parsed chunk the template was learned from; its holes hold the last match's strings. */
  readonly chunk: Record<string, unknown>;
  /** The literal text before, between and after the holes (one more than the holes). */
  readonly parts: readonly string[];
  /** Where each hole's string goes: `holders[i][keys[i]]`. */
  readonly holders: readonly Record<string, unknown>[];
  readonly keys: readonly string[];
  /** The bounds of each hole's string body in the last matched text, and whether it has escapes. */
  readonly starts: number[];
  readonly ends: number[];
  readonly escaped: boolean[];
  /** The decoded strings of the last match. */
  readonly values: string[];
}

/** Marks the holes in the template's text; a chunk that contains it is never learned from. */
const SENTINEL = '\uE000';
/**
 * String fields that stay the same along a stream (or end it), kept literal: a change is a
 * mismatch and a parse. `__proto__` could not be assigned in place; `error` is never skipped.
 */
const literalKeys = new Set(['id', 'object', 'model', 'system_fingerprint', 'service_tier', 'role', 'type', 'name', 'finish_reason', 'error', '__proto__']);
/** V8 keeps a slice of this many characters or more as a view of the whole read: copy those. */
const copyFromLength = 13;

/**
 * Learns a template from a parsed chunk and its text, or returns `undefined` when the text is
 * not exactly the chunk's `JSON.stringify` (the only text a template can match), the chunk has
 * usage (its nested objects are handed out in events and must not be shared), or nothing in it
 * varies.
 *
 * @internal
 */
export function learnChunkTemplate(data: string, chunk: Record<string, unknown>): ChunkTemplate | undefined {
  if (chunk.usage !== undefined || data.includes(SENTINEL)) return undefined;
  if (JSON.stringify(chunk) !== data) return undefined;
  const holders: Record<string, unknown>[] = [];
  const keys: string[] = [];
  const text = JSON.stringify(chunk, function (this: unknown, key: string, value: unknown) {
    if (typeof value === 'string' && key !== '' && !literalKeys.has(key) && !Array.isArray(this)) {
      holders.push(this as Record<string, unknown>);
      keys.push(key);
      return SENTINEL;
    }
    return value;
  });
  if (holders.length === 0) return undefined;
  const parts = text.split(SENTINEL);
  if (parts.length !== holders.length + 1) return undefined;
  return { chunk, parts, holders, keys, starts: [], ends: [], escaped: [], values: [] };
}

/**
 * Reads `data` with the template: `true` (and the template's chunk now holds `data`'s strings)
 * when it matches, `false` (and nothing changed) when it must be parsed.
 *
 * @internal
 */
export function matchChunkTemplate(template: ChunkTemplate, data: string): boolean {
  const { parts, starts, ends, escaped, values } = template;
  const holes = parts.length - 1;
  const length = data.length;
  let literal = parts[0]!;
  if (!data.startsWith(literal)) return false;
  let position = literal.length;
  for (let hole = 0; hole < holes; hole++) {
    // The hole's string body runs to the next unescaped quote, with no raw control character.
    let index = position;
    let hasEscape = false;
    for (;;) {
      if (index >= length) return false;
      const code = data.charCodeAt(index);
      if (code === 34) break;
      if (code === 92) {
        hasEscape = true;
        index += 2;
        continue;
      }
      if (code < 32) return false;
      index++;
    }
    starts[hole] = position;
    ends[hole] = index;
    escaped[hole] = hasEscape;
    literal = parts[hole + 1]!;
    if (!data.startsWith(literal, index)) return false;
    position = index + literal.length;
  }
  if (position !== length) return false;
  // Decode every hole before changing any: an invalid escape leaves the template as it was.
  for (let hole = 0; hole < holes; hole++) {
    const start = starts[hole]!;
    const end = ends[hole]!;
    if (!escaped[hole] && end - start < copyFromLength) {
      values[hole] = data.slice(start, end);
      continue;
    }
    try {
      values[hole] = JSON.parse(data.slice(start - 1, end + 1)) as string;
    } catch {
      return false;
    }
  }
  const { holders, keys } = template;
  for (let hole = 0; hole < holes; hole++) holders[hole]![keys[hole]!] = values[hole];
  return true;
}
