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
  /** The decoded strings of the last match. */
  readonly values: string[];
}

/**
 * String fields that stay the same along a stream (or end it), kept literal: a change is a
 * mismatch and a parse. `__proto__` could not be assigned in place; `error` is never skipped.
 */
const literalKeys = new Set(['id', 'object', 'model', 'system_fingerprint', 'service_tier', 'role', 'type', 'name', 'finish_reason', 'error', '__proto__']);

/**
 * Learns a template from a parsed chunk and its text, or returns `undefined` when the chunk has
 * usage (its nested objects are handed out in events and must not be shared), nothing in it
 * varies, or the template does not match the text it was learned from (the text is not the
 * chunk's `JSON.stringify`, the only text a template can match).
 *
 * @internal
 */
export function learnChunkTemplate(data: string, chunk: Record<string, unknown>): ChunkTemplate | undefined {
  if (chunk.usage !== undefined && chunk.usage !== null) return undefined;
  const template = new TemplateWriter().template(chunk);
  return template !== undefined && matchChunkTemplate(template, data) ? template : undefined;
}

/**
 * Writes a parsed chunk as `JSON.stringify` would, cut at its variable strings (an object's
 * string fields outside `literalKeys`; array items stay literal). A walk, not `JSON.stringify`
 * with a replacer: that calls back for every value and cost about a stream's worth of template
 * matches to learn one shape.
 */
class TemplateWriter {
  readonly #parts: string[] = [];
  readonly #holders: Record<string, unknown>[] = [];
  readonly #keys: string[] = [];
  #literal = '';

  /** The chunk's template, or `undefined` when none of its strings varies. */
  template(chunk: Record<string, unknown>): ChunkTemplate | undefined {
    this.#object(chunk);
    if (this.#holders.length === 0) return undefined;
    return { chunk, parts: [...this.#parts, this.#literal], holders: this.#holders, keys: this.#keys, values: [] };
  }

  #object(value: Record<string, unknown>): void {
    this.#literal += '{';
    let first = true;
    for (const key of Object.keys(value)) {
      this.#literal += `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      const field = value[key];
      if (typeof field === 'string' && !literalKeys.has(key)) {
        this.#parts.push(`${this.#literal}"`);
        this.#holders.push(value);
        this.#keys.push(key);
        this.#literal = '"';
      } else this.#value(field);
    }
    this.#literal += '}';
  }

  #value(value: unknown): void {
    if (Array.isArray(value)) {
      this.#literal += '[';
      for (let index = 0; index < value.length; index++) {
        if (index > 0) this.#literal += ',';
        this.#value(value[index]);
      }
      this.#literal += ']';
    } else if (value !== null && typeof value === 'object') this.#object(value as Record<string, unknown>);
    else this.#literal += JSON.stringify(value);
  }
}

/**
 * Reads `data` with the template: `true` (and the template's chunk now holds `data`'s strings)
 * when it matches, `false` (and nothing changed) when it must be parsed.
 *
 * Written for V8: a literal is compared as `slice() ===` (a flat compare; `startsWith` is
 * several times slower on these two-byte, sliced strings). A hole without escapes is taken as
 * it is (copied when long, so that it does not keep the read's whole text alive); one with
 * escapes is decoded, and validated, by `JSON.parse` of its quoted text.
 *
 * @internal
 */
export function matchChunkTemplate(template: ChunkTemplate, data: string): boolean {
  const { parts, values } = template;
  const holes = parts.length - 1;
  let literal = parts[0]!;
  let position = literal.length;
  if (data.slice(0, position) !== literal) return false;
  for (let hole = 0; hole < holes; hole++) {
    // The hole's string runs to the next quote not escaped by an odd run of backslashes.
    let end = data.indexOf('"', position);
    while (end !== -1 && data.charCodeAt(end - 1) === 92 && isEscaped(data, end, position)) end = data.indexOf('"', end + 1);
    if (end === -1) return false;
    literal = parts[hole + 1]!;
    const next = end + literal.length;
    if (data.slice(end, next) !== literal) return false;
    const value = readString(data, position, end);
    if (value === undefined) return false;
    values[hole] = value;
    position = next;
  }
  if (position !== data.length) return false;
  const { holders, keys } = template;
  for (let hole = 0; hole < holes; hole++) holders[hole]![keys[hole]!] = values[hole];
  return true;
}

/** The JSON string whose body is `data[start, end)`, or `undefined` if it is not a valid one. */
function readString(data: string, start: number, end: number): string | undefined {
  for (let index = start; index < end; index++) {
    const code = data.charCodeAt(index);
    if (code === 92 || code < 32) {
      // Escapes to decode, or a raw control character that JSON.parse rejects.
      try {
        return JSON.parse(data.slice(start - 1, end + 1)) as string;
      } catch {
        return undefined;
      }
    }
  }
  const value = data.slice(start, end);
  // V8 keeps a slice of 13 characters or more as a view of the whole read: copy it out.
  return value.length < 13 ? value : (' ' + value).slice(1);
}

/** Whether the quote at `index` follows an odd run of backslashes (that do not reach back past `start`). */
function isEscaped(data: string, index: number, start: number): boolean {
  let backslashes = 0;
  for (let at = index - 1; at >= start && data.charCodeAt(at) === 92; at--) backslashes++;
  return backslashes % 2 === 1;
}
