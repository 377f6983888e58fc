import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from './create-sse-decoder.js';
import { encodeSseComment, encodeSseEvent, type SseEventInit } from './encode-sse-event.js';

const utf8 = new TextEncoder();

function decodePieces(pieces: readonly (string | Uint8Array)[]): { events: SseEvent[]; comments: string[]; retries: number[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const decoder = createSseDecoder({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment),
    onRetry: (retry) => retries.push(retry),
  });
  for (const piece of pieces) decoder.feed(piece);
  decoder.end();
  return { events, comments, retries };
}

function cutBytes(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const points = offsets.map((offset) => offset % (bytes.length + 1)).sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** What a decoder gives back for `data`: the format carries line breaks only as LF. */
function normaliseLineBreaks(data: string): string {
  return data.replace(/\r\n|\r/g, '\n');
}

const anyUnit = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('\r', '\n', '\r\n', ':', ' ', '\uFEFF', '\0') },
);
const dataArbitrary = fc.string({ unit: anyUnit, maxLength: 40 });
const fieldArbitrary = fc.string({ unit: anyUnit, maxLength: 16 }).filter((value) => !/[\r\n]/.test(value));

describe('encodeSseEvent', () => {
  it('should encode [DONE] as a bare data frame', () => {
    expect(encodeSseEvent({ data: '[DONE]' })).toBe('data: [DONE]\n\n');
  });

  it('should write event, id and retry before the data', () => {
    expect(encodeSseEvent({ event: 'message', id: '7', retry: 1500, data: '{"a":1}' })).toMatchInlineSnapshot(`
      "event: message
      id: 7
      retry: 1500
      data: {"a":1}

      "
    `);
  });

  it('should write one data line per line of data, whatever the line break', () => {
    expect(encodeSseEvent({ data: 'a\r\nb\rc\nd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
  });

  it('should keep empty lines of data, leading and trailing ones included', () => {
    expect(encodeSseEvent({ data: '\na\n' })).toBe('data: \ndata: a\ndata: \n\n');
    expect(encodeSseEvent({ data: '' })).toBe('data: \n\n');
  });

  it('should leave out an empty event type, which means the default message type', () => {
    expect(encodeSseEvent({ event: '', data: 'x' })).toBe('data: x\n\n');
  });

  it('should write an empty id, which resets the last event id', () => {
    expect(encodeSseEvent({ id: '', data: 'x' })).toBe('id: \ndata: x\n\n');
  });

  it('should throw a TypeError for CR or LF in the event type', () => {
    expect(() => encodeSseEvent({ event: 'a\nb', data: 'x' })).toThrow(TypeError);
    expect(() => encodeSseEvent({ event: 'a\rb', data: 'x' })).toThrow(TypeError);
  });

  it('should throw a TypeError for CR, LF or NUL in the id', () => {
    expect(() => encodeSseEvent({ id: '1\n', data: 'x' })).toThrow(TypeError);
    expect(() => encodeSseEvent({ id: '\r1', data: 'x' })).toThrow(TypeError);
    expect(() => encodeSseEvent({ id: '1\0', data: 'x' })).toThrow(TypeError);
  });

  it('should throw a RangeError for a retry that is not a non-negative integer', () => {
    expect(() => encodeSseEvent({ retry: -1, data: 'x' })).toThrow(RangeError);
    expect(() => encodeSseEvent({ retry: 1.5, data: 'x' })).toThrow(RangeError);
    expect(() => encodeSseEvent({ retry: Number.NaN, data: 'x' })).toThrow(RangeError);
    expect(encodeSseEvent({ retry: 0, data: 'x' })).toBe('retry: 0\ndata: x\n\n');
  });

  it('should round-trip any data, event type and id through the decoder, split anywhere', () => {
    const initArbitrary = fc.record(
      { event: fieldArbitrary, data: dataArbitrary, id: fieldArbitrary.filter((id) => !id.includes('\0')) },
      { requiredKeys: ['data'] },
    );
    fc.assert(
      fc.property(fc.array(initArbitrary, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 20 }), (inits, offsets) => {
        const stream = inits.map((init: SseEventInit) => encodeSseEvent(init)).join('');
        const expected: SseEvent[] = [];
        let lastId: string | undefined;
        for (const init of inits) {
          if (init.id !== undefined) lastId = init.id;
          expected.push({ event: init.event === '' ? undefined : init.event, data: normaliseLineBreaks(init.data), id: lastId });
        }
        expect(decodePieces([stream]).events).toEqual(expected);
        expect(decodePieces(cutBytes(utf8.encode(stream), offsets)).events).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('encodeSseComment', () => {
  it('should encode a keep-alive comment', () => {
    expect(encodeSseComment('keep-alive')).toBe(': keep-alive\n\n');
  });

  it('should write one comment line per line of text', () => {
    expect(encodeSseComment('a\r\nb\nc')).toBe(': a\n: b\n: c\n\n');
  });

  it('should round-trip any text as comments and dispatch nothing', () => {
    fc.assert(
      fc.property(dataArbitrary, (text) => {
        const decoded = decodePieces([encodeSseComment(text) + encodeSseEvent({ data: 'after' })]);
        expect(decoded.comments).toEqual(normaliseLineBreaks(text).split('\n'));
        expect(decoded.events).toEqual([{ event: undefined, data: 'after', id: undefined }]);
      }),
      { numRuns: 200 },
    );
  });
});
