/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` type, or `undefined` when none (or an empty one) was given: the default `message`. */
  event: string | undefined;
  /** The `data:` lines of the event joined with LF. */
  data: string;
  /**
   * The last event id seen on the stream, not only on this event (it persists until the next
   * `id:` line, as in the WHATWG spec); `undefined` if none was ever seen, `''` after an empty `id:`.
   */
  id: string | undefined;
}

/** What {@link createSseDecoder} calls as it decodes. */
export interface SseDecoderCallbacks {
  /** Called for each complete event (a blank line after at least one `data` field). */
  onEvent(event: SseEvent): void;
  /** Called for each comment line (`: text`), with one leading space stripped. */
  onComment?(comment: string): void;
  /** Called for each valid `retry:` field (ASCII digits only). */
  onRetry?(milliseconds: number): void;
}

/** Options of {@link createSseDecoder}. */
export interface SseDecoderOptions {
  /**
   * The longest line, and the longest `data` of one event, in UTF-16 code units; longer throws
   * {@link SseEventTooLongError}. {@link defaultMaxSseEventLength} by default; `Infinity` for no limit.
   */
  maxEventLength?: number;
}

/**
 * 16 Mi code units: far above any legitimate chunk, low enough that a stream which never ends
 * its line (or its event) fails long before V8's string limit or the machine's memory.
 */
export const defaultMaxSseEventLength = 16 * 1024 * 1024;

/** A line or an event longer than the decoder's `maxEventLength`: the stream is broken or hostile. */
export class SseEventTooLongError extends Error {
  override readonly name = 'SseEventTooLongError';
  /** `line`: one line (of any field) ran past the limit; `event`: the data lines of one event did. */
  readonly kind: 'line' | 'event';
  readonly limit: number;

  constructor(kind: 'line' | 'event', limit: number) {
    super(`An event stream sent ${kind === 'line' ? 'a line' : 'an event'} longer than ${limit} characters.`);
    this.kind = kind;
    this.limit = limit;
  }
}

/** An incremental SSE decoder: a pure state machine with no I/O. */
export interface SseDecoder {
  /**
   * Decodes the next piece of the stream. Pieces may split the stream anywhere: inside a line,
   * between the CR and LF of a CRLF, or (for bytes) inside a UTF-8 sequence. Throws
   * {@link SseEventTooLongError} (after clearing the decoder) for a line or event over the limit.
   */
  feed(chunk: string | Uint8Array): void;
  /**
   * Clears all state (partial line, partial event, last event id, pending bytes), ready for a new
   * stream. With `consume: true` the buffered incomplete line is first handled as if a line end
   * followed it: a `retry:` or comment in it takes effect, but the event it belongs to is still
   * dropped, since no blank line dispatched it. Called from a callback, it also drops the rest of
   * the chunk being fed.
   */
  reset(options?: { consume?: boolean }): void;
  /**
   * Marks the end of the stream: flushes the UTF-8 decoder and, as the WHATWG spec requires,
   * discards the incomplete trailing event. The decoder is then ready for a new stream.
   */
  end(): void;
}

const LF = 10;
const SPACE = 32;
const COLON = 58;
const BOM = 0xfeff;
const streamOption: TextDecodeOptions = { stream: true };

/**
 * Creates an incremental decoder of `text/event-stream` that follows the WHATWG HTML parsing
 * rules: LF, CR and CRLF line ends, comments, `event`/`data`/`id`/`retry` fields, a leading BOM.
 *
 * Each `feed` scans only the new text, once for CR and once per line for LF, with `indexOf`, and
 * an unfinished line is kept as a rope of pieces rather than re-joined on every feed, so cost is
 * linear in the input however it is cut (eventsource-parser's note on O(N²) re-scans is the
 * warning here). Bytes are decoded by one streaming `TextDecoder`.
 *
 * @example
 * const decoder = createSseDecoder({ onEvent: (event) => console.log(event.event, event.data) });
 * decoder.feed('event: message\ndata: {"a"');
 * decoder.feed(':1}\n\n'); // logs: message {"a":1}
 */
export function createSseDecoder(callbacks: SseDecoderCallbacks, options: SseDecoderOptions = {}): SseDecoder {
  const maxLength = options.maxEventLength ?? defaultMaxSseEventLength;
  let textDecoder: TextDecoder | undefined;
  /** Bytes were fed since the last flush, so the TextDecoder may hold part of a character. */
  let bytesFed = false;
  /**
   * The unfinished last line: its first piece ('' when none), kept flat to read the field name,
   * and the rest as a rope of later pieces (string concatenation is O(1) in JS engines; the rope
   * is flattened once, by whoever reads it, so a line fed in a million pieces stays linear).
   */
  let pendingHead = '';
  let pendingRest = '';
  /** The length of the unfinished line (head and rope), checked against the limit as it grows. */
  let pendingLength = 0;
  let atStreamStart = true;
  /** The previous text ended with a CR that ended a line: an LF right after it belongs to it. */
  let skipLeadingLf = false;
  let data = '';
  let dataLines = 0;
  let eventType: string | undefined;
  let lastEventId: string | undefined;
  /** Bumped by reset() and end(), so that a callback calling them stops the feed in progress. */
  let generation = 0;

  function feed(chunk: string | Uint8Array): void {
    if (typeof chunk === 'string') {
      // Strings after bytes: the bytes' incomplete tail can never be completed now.
      if (bytesFed) processText(flushTextDecoder());
      processText(chunk);
    } else {
      // ignoreBOM: the BOM is stripped below, once, whether the stream came as strings or bytes.
      textDecoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
      bytesFed = true;
      processText(textDecoder.decode(chunk, streamOption));
    }
  }

  function flushTextDecoder(): string {
    bytesFed = false;
    return textDecoder === undefined ? '' : textDecoder.decode();
  }

  function processText(text: string): void {
    const length = text.length;
    if (length === 0) return;
    let position = 0;
    const startGeneration = generation;
    if (atStreamStart) {
      atStreamStart = false;
      if (text.charCodeAt(0) === BOM) position = 1;
    } else if (skipLeadingLf) {
      skipLeadingLf = false;
      if (text.charCodeAt(0) === LF) position = 1;
    }

    let nextCr = text.indexOf('\r', position);
    if (nextCr === -1) {
      // LF-only text, by far the most common: at most one indexOf per line, none for blank lines.
      if (pendingHead !== '') {
        const lineEnd = text.indexOf('\n', position);
        if (lineEnd === -1) {
          keepPending(text, position);
          return;
        }
        processPendingLine(text, position, lineEnd);
        position = lineEnd + 1;
      }
      while (position < length && generation === startGeneration) {
        const first = text.charCodeAt(position);
        if (first === LF) {
          dispatchEvent();
          position++;
          continue;
        }
        const lineEnd = text.indexOf('\n', position);
        if (lineEnd === -1) break;
        if (lineEnd - position > maxLength) tooLong('line');
        if (first === 100 && isDataField(text, position)) {
          const value = text.slice(text.charCodeAt(position + 5) === SPACE ? position + 6 : position + 5, lineEnd);
          // The usual frame, `data: …\n\n` with no other data buffered, dispatches directly.
          if (dataLines === 0 && text.charCodeAt(lineEnd + 1) === LF) {
            const event: SseEvent = { event: eventType, data: value, id: lastEventId };
            eventType = undefined;
            position = lineEnd + 2;
            callbacks.onEvent(event);
            continue;
          }
          appendData(value);
        } else if (first === 101 && isEventField(text, position)) {
          eventType = text.slice(text.charCodeAt(position + 6) === SPACE ? position + 7 : position + 6, lineEnd) || undefined;
        } else {
          processLine(text, position, lineEnd);
        }
        position = lineEnd + 1;
      }
    } else {
      // Mixed line ends: track the next CR and next LF separately so neither is searched twice.
      let nextLf = text.indexOf('\n', position);
      let first = pendingHead !== '';
      while ((nextCr !== -1 || nextLf !== -1) && generation === startGeneration) {
        let lineEnd: number;
        let nextPosition: number;
        if (nextCr === -1 || (nextLf !== -1 && nextLf < nextCr)) {
          lineEnd = nextLf;
          nextPosition = lineEnd + 1;
          nextLf = text.indexOf('\n', nextPosition);
        } else {
          lineEnd = nextCr;
          if (nextLf === lineEnd + 1) {
            nextPosition = lineEnd + 2;
            nextLf = text.indexOf('\n', nextPosition);
          } else {
            nextPosition = lineEnd + 1;
            // A CR at the very end: its LF, if any, comes with the next text.
            if (nextPosition === length) skipLeadingLf = true;
          }
          nextCr = text.indexOf('\r', nextPosition);
        }
        if (first) {
          first = false;
          processPendingLine(text, position, lineEnd);
        } else {
          if (lineEnd - position > maxLength) tooLong('line');
          processLine(text, position, lineEnd);
        }
        position = nextPosition;
      }
    }
    if (position < length && generation === startGeneration) keepPending(text, position);
  }

  /** Buffers `text` from `position` on as (part of) the unfinished last line. */
  function keepPending(text: string, position: number): void {
    const piece = position === 0 ? text : text.slice(position);
    pendingLength += piece.length;
    if (pendingLength > maxLength) tooLong('line');
    if (pendingHead === '') pendingHead = piece;
    else pendingRest += piece;
  }

  /** Completes the buffered partial line with `text[start, end)` and processes it. */
  function processPendingLine(text: string, start: number, end: number): void {
    if (pendingLength + (end - start) > maxLength) tooLong('line');
    const head = pendingHead;
    const rest = start === end ? pendingRest : pendingRest + text.slice(start, end);
    pendingHead = '';
    pendingRest = '';
    pendingLength = 0;
    if (head.length > 5 && startsWithData(head, 0)) {
      // A data line cut by chunk boundaries, the usual case. The value is left as a rope for the
      // consumer to flatten once, rather than flattening the whole line here to read "data:".
      appendData((head.charCodeAt(5) === SPACE ? head.slice(6) : head.slice(5)) + rest);
      return;
    }
    const line = head + rest;
    processLine(line, 0, line.length);
  }

  /**
   * Processes the line `text[start, end)`. `text[end]` is a line end or past the string, so
   * reading one character beyond a field name never matches `:` or a space by accident.
   */
  function processLine(text: string, start: number, end: number): void {
    if (start === end) {
      dispatchEvent();
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) {
      if (callbacks.onComment !== undefined) {
        callbacks.onComment(text.slice(text.charCodeAt(start + 1) === SPACE ? start + 2 : start + 1, end));
      }
      return;
    }
    if (startsWithData(text, start)) {
      appendData(text.slice(text.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end));
      return;
    }
    if (startsWithEvent(text, start)) {
      eventType = text.slice(text.charCodeAt(start + 6) === SPACE ? start + 7 : start + 6, end) || undefined;
      return;
    }
    // Anything else: split at the first colon of this line only.
    const line = start === 0 && end === text.length ? text : text.slice(start, end);
    const colon = line.indexOf(':');
    if (colon === -1) {
      processField(line, '');
    } else {
      processField(line.slice(0, colon), line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1));
    }
  }

  function processField(field: string, value: string): void {
    switch (field) {
      case 'data':
        appendData(value);
        break;
      case 'event':
        eventType = value || undefined;
        break;
      case 'id':
        if (value.indexOf('\0') === -1) lastEventId = value;
        break;
      case 'retry':
        if (isAsciiDigits(value) && callbacks.onRetry !== undefined) callbacks.onRetry(parseInt(value, 10));
        break;
      default:
      // Unknown fields are ignored (WHATWG).
    }
  }

  /** Adds a data line to the event being built. */
  function appendData(value: string): void {
    if (dataLines === 0) {
      data = value;
    } else {
      if (data.length + 1 + value.length > maxLength) tooLong('event');
      data = data + '\n' + value;
    }
    dataLines++;
  }

  /** Lets go of everything buffered (the stream cannot go on), then throws. */
  function tooLong(kind: 'line' | 'event'): never {
    clear();
    throw new SseEventTooLongError(kind, maxLength);
  }

  function dispatchEvent(): void {
    // An empty data buffer dispatches nothing, but still resets the event type (WHATWG).
    if (dataLines === 0) {
      eventType = undefined;
      return;
    }
    const event: SseEvent = { event: eventType, data, id: lastEventId };
    data = '';
    dataLines = 0;
    eventType = undefined;
    callbacks.onEvent(event);
  }

  function clear(): void {
    generation++;
    pendingHead = '';
    pendingRest = '';
    pendingLength = 0;
    atStreamStart = true;
    skipLeadingLf = false;
    data = '';
    dataLines = 0;
    eventType = undefined;
    lastEventId = undefined;
  }

  function reset(options?: { consume?: boolean }): void {
    const tail = flushTextDecoder();
    if (options?.consume === true) {
      if (tail !== '') processText(tail);
      if (pendingHead !== '') processPendingLine('', 0, 0);
    }
    clear();
  }

  function end(): void {
    // The flushed tail can only be U+FFFD for a cut character: never a line end, so nothing to process.
    flushTextDecoder();
    clear();
  }

  return { feed, reset, end };
}

// The field checks exist twice on purpose. JS engines keep type feedback per function, not per
// caller: the hot loop sees only the caller's chunks (one or two string representations), while
// the slow paths see slices and ropes of every kind. Sharing one function made its
// `charCodeAt` calls megamorphic, and the hot loop lost its inlined character reads.

/** `text` has `data:` at `start` (hot loop only; see above). */
function isDataField(text: string, start: number): boolean {
  return (
    text.charCodeAt(start) === 100 && // d
    text.charCodeAt(start + 1) === 97 && // a
    text.charCodeAt(start + 2) === 116 && // t
    text.charCodeAt(start + 3) === 97 && // a
    text.charCodeAt(start + 4) === COLON
  );
}

/** `text` has `event:` at `start` (hot loop only). */
function isEventField(text: string, start: number): boolean {
  return (
    text.charCodeAt(start) === 101 && // e
    text.charCodeAt(start + 1) === 118 && // v
    text.charCodeAt(start + 2) === 101 && // e
    text.charCodeAt(start + 3) === 110 && // n
    text.charCodeAt(start + 4) === 116 && // t
    text.charCodeAt(start + 5) === COLON
  );
}

/** `text` has `data:` at `start` (partial lines and other slow paths). */
function startsWithData(text: string, start: number): boolean {
  return (
    text.charCodeAt(start) === 100 && // d
    text.charCodeAt(start + 1) === 97 && // a
    text.charCodeAt(start + 2) === 116 && // t
    text.charCodeAt(start + 3) === 97 && // a
    text.charCodeAt(start + 4) === COLON
  );
}

/** `text` has `event:` at `start` (slow paths). */
function startsWithEvent(text: string, start: number): boolean {
  return (
    text.charCodeAt(start) === 101 && // e
    text.charCodeAt(start + 1) === 118 && // v
    text.charCodeAt(start + 2) === 101 && // e
    text.charCodeAt(start + 3) === 110 && // n
    text.charCodeAt(start + 4) === 116 && // t
    text.charCodeAt(start + 5) === COLON
  );
}

function isAsciiDigits(value: string): boolean {
  if (value.length === 0) return false;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return true;
}
