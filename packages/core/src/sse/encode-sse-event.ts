import { commentFrame, dataFrame, eventField, frameOpening, hasLineBreak, idField, multiLineFrame, retryField } from './sse-frame-builders.js';

/** The fields of one server-sent event, as {@link encodeSseEvent} writes them. */
export interface SseEventInit {
  /** The event type (`event:` line). Left out when absent or empty: both mean the default `message`. */
  event?: string;
  /** The payload. Line breaks (CRLF, CR or LF) become several `data:` lines; a decoder joins them with LF. */
  data: string;
  /** The event id (`id:` line); a decoder keeps it as the last event id until another `id:` arrives. */
  id?: string;
  /** The reconnection time in milliseconds (`retry:` line): a non-negative integer. */
  retry?: number;
}

/**
 * Encodes one complete SSE frame, ending with the blank line that dispatches it.
 *
 * The format cannot carry CR or LF inside `event` or `id`, so these throw a `TypeError` instead
 * of splitting the frame (Hono's `writeSSE` guard); an `id` with NUL would be ignored by every
 * decoder, so it throws too. Line breaks in `data` are normalised to LF on the way through.
 *
 * @example
 * encodeSseEvent({ data: '[DONE]' }); // 'data: [DONE]\n\n'
 * encodeSseEvent({ event: 'message', data: '{"a":1}' }); // 'event: message\ndata: {"a":1}\n\n'
 */
export function encodeSseEvent(init: SseEventInit): string {
  const { event, data, id, retry } = init;
  let head = '';
  if (event !== undefined && event !== '') {
    if (hasLineBreak(event)) throw new TypeError('SSE event type must not contain CR or LF');
    head = eventField(event);
  }
  if (id !== undefined) {
    if (hasLineBreak(id) || id.indexOf('\0') !== -1) throw new TypeError('SSE event id must not contain CR, LF or NUL');
    head += idField(id);
  }
  if (retry !== undefined) {
    if (!Number.isSafeInteger(retry) || retry < 0) {
      throw new RangeError(`SSE retry must be a non-negative integer, got ${String(retry)}`);
    }
    head += retryField(retry);
  }
  // The hot path (one JSON chunk per frame) never has a line break: no split, one concat.
  if (!hasLineBreak(data)) return dataFrame(frameOpening(head), data);
  return multiLineFrame(head, 'data: ', data);
}

/**
 * Encodes an SSE comment frame, which every decoder skips: the keep-alive of decisions §4.
 * Each line of a multi-line `text` becomes its own `: ` line.
 *
 * @example
 * encodeSseComment('keep-alive'); // ': keep-alive\n\n'
 */
export function encodeSseComment(text: string): string {
  return hasLineBreak(text) ? multiLineFrame('', ': ', text) : commentFrame(text);
}
