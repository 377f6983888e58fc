import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from './create-sse-decoder.js';

type Entry = { event: SseEvent } | { comment: string } | { retry: number };

/** Feeds the pieces to one decoder, then ends the stream; returns everything it reported, in order. */
function decode(pieces: readonly (string | Uint8Array)[], options: { end?: boolean } = {}): Entry[] {
  const entries: Entry[] = [];
  const decoder = createSseDecoder({
    onEvent: (event) => entries.push({ event }),
    onComment: (comment) => entries.push({ comment }),
    onRetry: (retry) => entries.push({ retry }),
  });
  for (const piece of pieces) decoder.feed(piece);
  if (options.end !== false) decoder.end();
  return entries;
}

/** Just the events of `decode`. */
function events(...pieces: (string | Uint8Array)[]): SseEvent[] {
  return decode(pieces).flatMap((entry) => ('event' in entry ? [entry.event] : []));
}

const utf8 = new TextEncoder();

/** Cuts `bytes` at the given offsets (taken modulo length + 1, so any numbers do), keeping empty pieces. */
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

function cutString(text: string, offsets: readonly number[]): string[] {
  const points = offsets.map((offset) => offset % (text.length + 1)).sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * A line-by-line transcription of the WHATWG "event stream interpretation" steps, with no
 * incremental state: the model the real decoder is checked against.
 */
function referenceDecode(input: string): Entry[] {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the unterminated tail (or '' after the last line end) is never processed
  const entries: Entry[] = [];
  let data = '';
  let type = '';
  let lastId: string | undefined;
  for (const line of lines) {
    if (line === '') {
      if (data === '') {
        type = '';
        continue;
      }
      entries.push({ event: { event: type === '' ? undefined : type, data: data.slice(0, -1), id: lastId } });
      data = '';
      type = '';
      continue;
    }
    if (line.startsWith(':')) {
      entries.push({ comment: line.slice(1).replace(/^ /, '') });
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data += value + '\n';
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) entries.push({ retry: parseInt(value, 10) });
  }
  return entries;
}

// Arbitrary SSE streams: every kind of line, all three line ends, multibyte text, NUL and BOMs.
const valueArbitrary = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', 'b', ' ', ':', '{', '"', '1') },
    { weight: 2, arbitrary: fc.constantFrom('é', '世', '界', '😀', '🇳🇴', '\0', '\uFEFF', '\u2028', '\u0085') },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((unit) => !/[\r\n]/.test(unit)),
    },
  ),
  maxLength: 12,
});
const lineArbitrary = fc.oneof(
  valueArbitrary.map((value) => `data: ${value}`),
  valueArbitrary.map((value) => `data:${value}`),
  fc.constantFrom('data', 'data:', 'event', 'id', 'retry', ''),
  valueArbitrary.map((value) => `event: ${value}`),
  valueArbitrary.map((value) => `id: ${value}`),
  fc.nat().map((value) => `retry: ${value}`),
  valueArbitrary.map((value) => `retry: ${value}`),
  valueArbitrary.map((value) => `: ${value}`),
  valueArbitrary.map((value) => `:${value}`),
  valueArbitrary.map((value) => `other: ${value}`),
  valueArbitrary,
);
const streamArbitrary = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(lineArbitrary, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 40 }),
    tail: valueArbitrary,
  })
  .map(({ bom, lines, tail }) => (bom ? '\uFEFF' : '') + lines.map(([line, end]) => line + end).join('') + tail);
const offsetsArbitrary = fc.array(fc.nat(), { maxLength: 30 });

describe('createSseDecoder', () => {
  describe('line ends', () => {
    it('should accept LF, CR and CRLF line ends, mixed in one stream', () => {
      expect(events('data: a\n\ndata: b\r\rdata: c\r\n\r\ndata: d\r\n\n')).toEqual([
        { event: undefined, data: 'a', id: undefined },
        { event: undefined, data: 'b', id: undefined },
        { event: undefined, data: 'c', id: undefined },
        { event: undefined, data: 'd', id: undefined },
      ]);
    });

    it('should count a CRLF split across two feeds as one line end', () => {
      // Were the CR and LF two line ends, the LF would be a blank line dispatching "a" alone.
      expect(events('data: a\r', '\ndata: b\r', '\n\r', '\n')).toEqual([{ event: undefined, data: 'a\nb', id: undefined }]);
    });

    it('should count a CRLF split across two byte feeds as one line end', () => {
      expect(events(utf8.encode('data: a\r'), utf8.encode('\ndata: b\r\n\r'), utf8.encode('\n'))).toEqual([
        { event: undefined, data: 'a\nb', id: undefined },
      ]);
    });

    it('should dispatch at a final CR without waiting for a possible LF', () => {
      const seen: string[] = [];
      const decoder = createSseDecoder({ onEvent: (event) => seen.push(event.data) });
      decoder.feed('data: x\r\r');
      expect(seen).toEqual(['x']);
      decoder.feed('\ndata: y\n\n'); // this LF ends the CR's line, not a new blank line
      expect(seen).toEqual(['x', 'y']);
    });

    it('should keep a CR that is not a line end of the next feed from being dropped', () => {
      expect(events('data: a\r', 'data: b\r\r')).toEqual([{ event: undefined, data: 'a\nb', id: undefined }]);
    });
  });

  describe('fields', () => {
    it('should strip exactly one leading space from a value', () => {
      expect(events('data:x\n\ndata: x\n\ndata:  x\n\n').map((event) => event.data)).toEqual(['x', 'x', ' x']);
    });

    it('should split a field at its first colon only', () => {
      expect(events('data: a: b:c\n\n').map((event) => event.data)).toEqual(['a: b:c']);
    });

    it('should join data lines with LF', () => {
      expect(events('data: a\ndata:\ndata: b\n\n').map((event) => event.data)).toEqual(['a\n\nb']);
    });

    it('should treat a line without a colon as the field with an empty value', () => {
      expect(events('data\n\n', 'event\ndata\ndata\n\n')).toEqual([
        { event: undefined, data: '', id: undefined },
        { event: undefined, data: '\n', id: undefined },
      ]);
    });

    it('should dispatch an event whose only data line is empty', () => {
      expect(events('data:\n\n')).toEqual([{ event: undefined, data: '', id: undefined }]);
    });

    it('should set the event type and reset it after each event', () => {
      expect(events('event: thought_trace\ndata: 1\n\ndata: 2\n\nevent:message\ndata: 3\n\n')).toEqual([
        { event: 'thought_trace', data: '1', id: undefined },
        { event: undefined, data: '2', id: undefined },
        { event: 'message', data: '3', id: undefined },
      ]);
    });

    it('should report an empty event type as undefined', () => {
      expect(events('event:\ndata: x\n\n')).toEqual([{ event: undefined, data: 'x', id: undefined }]);
    });

    it('should use the last event type of an event', () => {
      expect(events('event: a\nevent: b\ndata: x\n\n').map((event) => event.event)).toEqual(['b']);
    });

    it('should ignore unknown fields and field names in another case', () => {
      expect(events('foo: bar\nData: no\n data: no\ndata: yes\nEVENT: no\n\n')).toEqual([
        { event: undefined, data: 'yes', id: undefined },
      ]);
    });

    it('should ignore lines starting with a colon as comments, reporting them to onComment', () => {
      expect(decode([': keep-alive\n:no-space\n:  two\n:\ndata: x\n\n'])).toEqual([
        { comment: 'keep-alive' },
        { comment: 'no-space' },
        { comment: ' two' },
        { comment: '' },
        { event: { event: undefined, data: 'x', id: undefined } },
      ]);
    });

    it('should not need the optional callbacks', () => {
      const seen: SseEvent[] = [];
      const decoder = createSseDecoder({ onEvent: (event) => seen.push(event) });
      decoder.feed(': comment\nretry: 10\ndata: x\n\n');
      expect(seen).toEqual([{ event: undefined, data: 'x', id: undefined }]);
    });
  });

  describe('dispatch', () => {
    it('should dispatch nothing on a blank line when no data arrived, but reset the event type', () => {
      expect(events('event: a\n\n\n\ndata: x\n\n')).toEqual([{ event: undefined, data: 'x', id: undefined }]);
    });

    it('should discard an incomplete event at the end of the stream', () => {
      expect(events('data: complete\n\ndata: cut\n')).toEqual([{ event: undefined, data: 'complete', id: undefined }]);
      expect(events('data: complete\n\ndata: cut')).toEqual([{ event: undefined, data: 'complete', id: undefined }]);
    });

    it('should start afresh after end()', () => {
      const seen: SseEvent[] = [];
      const decoder = createSseDecoder({ onEvent: (event) => seen.push(event) });
      decoder.feed('id: 1\nevent: a\ndata: lost');
      decoder.end();
      decoder.feed('data: b\n\n');
      expect(seen).toEqual([{ event: undefined, data: 'b', id: undefined }]);
    });
  });

  describe('id', () => {
    it('should keep the last event id across events, as the WHATWG last event ID buffer', () => {
      expect(events('id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\n')).toEqual([
        { event: undefined, data: 'a', id: '1' },
        { event: undefined, data: 'b', id: '1' },
        { event: undefined, data: 'c', id: '2' },
        { event: undefined, data: 'd', id: '' },
      ]);
    });

    it('should ignore an id containing NUL', () => {
      expect(events('id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n').map((event) => event.id)).toEqual(['1', '1']);
    });

    it('should set the id even when no event is dispatched', () => {
      expect(events('id: 7\n\ndata: a\n\n').map((event) => event.id)).toEqual(['7']);
    });
  });

  describe('retry', () => {
    it('should report a retry made of ASCII digits only', () => {
      expect(decode(['retry: 3000\nretry:0\nretry: 12a\nretry: -1\nretry:\nretry:  5\nretry: 1.5\nretry: ٣\n'])).toEqual([
        { retry: 3000 },
        { retry: 0 },
      ]);
    });
  });

  describe('BOM', () => {
    it('should drop a leading BOM of a string stream', () => {
      expect(events('\uFEFFdata: x\n\n')).toEqual([{ event: undefined, data: 'x', id: undefined }]);
    });

    it('should drop a leading BOM of a byte stream, even split across feeds', () => {
      const bytes = utf8.encode('\uFEFFdata: x\n\n');
      expect(events(bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2))).toEqual([
        { event: undefined, data: 'x', id: undefined },
      ]);
    });

    it('should drop only the first BOM, after empty feeds', () => {
      // The second BOM makes the field name "\uFEFFdata", an unknown field.
      expect(events('', '\uFEFF', '\uFEFFdata: x\n\ndata: y\n\n')).toEqual([{ event: undefined, data: 'y', id: undefined }]);
    });

    it('should keep a BOM that is not at the start of the stream', () => {
      expect(events('data: x\n\n\uFEFFdata: y\n\ndata: \uFEFF\n\n').map((event) => event.data)).toEqual(['x', '\uFEFF']);
    });
  });

  describe('bytes', () => {
    it('should decode a multibyte character split across feeds', () => {
      const bytes = utf8.encode('data: 😀世\n\n');
      const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte));
      expect(events(...pieces)).toEqual([{ event: undefined, data: '😀世', id: undefined }]);
    });

    it('should replace invalid UTF-8 with U+FFFD', () => {
      expect(events(Uint8Array.of(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a)).map((event) => event.data)).toEqual([
        '\uFFFD',
      ]);
    });

    it('should flush a cut character when strings follow bytes', () => {
      const bytes = utf8.encode('data: 😀');
      expect(events(bytes.subarray(0, 8), '\n\n').map((event) => event.data)).toEqual(['\uFFFD']);
    });
  });

  describe('reset', () => {
    it('should clear the partial line, the partial event and the last event id', () => {
      const seen: SseEvent[] = [];
      const decoder = createSseDecoder({ onEvent: (event) => seen.push(event) });
      decoder.feed('id: 1\nevent: a\ndata: lost\ndata: cu');
      decoder.reset();
      decoder.feed('t\ndata: b\n\n');
      expect(seen).toEqual([{ event: undefined, data: 'b', id: undefined }]);
    });

    it('should drop a BOM again after a reset, as at a new stream start', () => {
      const seen: string[] = [];
      const decoder = createSseDecoder({ onEvent: (event) => seen.push(event.data) });
      decoder.feed('data: a\n\n');
      decoder.reset();
      decoder.feed('\uFEFFdata: b\n\n');
      expect(seen).toEqual(['a', 'b']);
    });

    it('should process the buffered incomplete line first with consume: true', () => {
      const entries: Entry[] = [];
      const decoder = createSseDecoder({
        onEvent: (event) => entries.push({ event }),
        onComment: (comment) => entries.push({ comment }),
        onRetry: (retry) => entries.push({ retry }),
      });
      decoder.feed('retry: 25');
      decoder.reset({ consume: true });
      decoder.feed(': bye');
      decoder.reset({ consume: true });
      decoder.feed('data: still no blank line');
      decoder.reset({ consume: true });
      decoder.feed('retry: 99');
      decoder.reset();
      expect(entries).toEqual([{ retry: 25 }, { comment: 'bye' }]);
    });

    it('should drop the rest of the chunk being fed when a callback resets the decoder', () => {
      const seen: string[] = [];
      const decoder = createSseDecoder({
        onEvent: (event) => {
          seen.push(event.data);
          if (event.data === 'stop') decoder.reset();
        },
      });
      decoder.feed('data: a\n\ndata: stop\n\ndata: dropped\n\ndata: cut');
      decoder.feed('data: fresh\n\n');
      decoder.feed('data: a\r\rdata: stop\r\rdata: dropped\r\r');
      expect(seen).toEqual(['a', 'stop', 'fresh', 'a', 'stop']);
    });

    it('should forget a CR at the end of the previous stream', () => {
      expect(events('data: a\r\r')).toHaveLength(1);
      const seen: string[] = [];
      const decoder = createSseDecoder({ onEvent: (event) => seen.push(event.data) });
      decoder.feed('data: a\r');
      decoder.reset();
      decoder.feed('\ndata: b\n\n'); // a blank line now: no data buffered, nothing dispatched
      expect(seen).toEqual(['b']);
    });
  });

  describe('long input', () => {
    it('should rebuild one long line fed in many small pieces', () => {
      const value = 'x'.repeat(100_000);
      const text = `event: big\ndata: ${value}\n\n`;
      const pieces = cutString(text, Array.from({ length: 2000 }, (_, index) => index * 53));
      expect(events(...pieces)).toEqual([{ event: 'big', data: value, id: undefined }]);
    });

    it('should rebuild a line that starts with a short piece ("da", "ta: …")', () => {
      expect(events('d', 'a', 'ta', ':', ' ', 'x', 'y', '\n', '\n')).toEqual([{ event: undefined, data: 'xy', id: undefined }]);
      expect(events('eve', 'nt: a\n', 'data: 1\n\n')).toEqual([{ event: 'a', data: '1', id: undefined }]);
    });
  });

  describe('properties', () => {
    it('should yield the same events, comments and retries for every split of the bytes', () => {
      fc.assert(
        fc.property(streamArbitrary, offsetsArbitrary, (text, offsets) => {
          const whole = decode([text]);
          expect(decode(cutBytes(utf8.encode(text), offsets))).toEqual(whole);
        }),
        { numRuns: 500 },
      );
    });

    it('should yield the same events for every split of the string, surrogate pairs included', () => {
      fc.assert(
        fc.property(streamArbitrary, offsetsArbitrary, (text, offsets) => {
          expect(decode(cutString(text, offsets))).toEqual(decode([text]));
        }),
        { numRuns: 500 },
      );
    });

    it('should agree with a line-by-line transcription of the WHATWG rules', () => {
      fc.assert(
        fc.property(streamArbitrary, offsetsArbitrary, (text, offsets) => {
          expect(decode(cutBytes(utf8.encode(text), offsets))).toEqual(referenceDecode(text));
        }),
        { numRuns: 500 },
      );
    });
  });
});
