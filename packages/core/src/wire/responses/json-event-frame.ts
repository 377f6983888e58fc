import { encodeSseEvent } from '../../sse/encode-sse-event.js';

/**
 * The frame of a named event whose data is one JSON text, as `encodeSseEvent` writes it, without
 * its scan for line breaks: `JSON.stringify` never emits a raw CR or LF, so the data is always a
 * single line. The head (`event:` line and the start of `data:`) is split off so that a stream
 * builds it once per item and its deltas cost one concatenation each.
 */
export function jsonEventHead(type: string): string {
  return encodeSseEvent({ event: type, data: '' }).slice(0, -2);
}

/** The end of a frame whose JSON lacks its sequence number and closing brace. */
export function sequencedTail(sequence: number): string {
  return ',"sequence_number":' + sequence + '}\n\n';
}
