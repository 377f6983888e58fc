import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, defaultMaxSseEventLength, SseEventTooLongError, type SseEvent } from './create-sse-decoder.js';
import { SseDecoderStream } from './sse-decoder-stream.js';

function decoderWith(maxEventLength: number) {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ onEvent: (event) => events.push(event) }, { maxEventLength });
  return { events, decoder };
}

describe('the SSE decoder\'s limit on one line and one event', () => {
  it('should accept a line and an event of exactly the limit', () => {
    const { events, decoder } = decoderWith(16);
    decoder.feed(`data: ${'x'.repeat(10)}\n\n`); // the line is 16 units
    decoder.feed(`data:${'a'.repeat(7)}\ndata:${'b'.repeat(8)}\n\n`); // data 7 + 1 + 8 = 16
    expect(events.map((event) => event.data)).toEqual(['x'.repeat(10), `${'a'.repeat(7)}\n${'b'.repeat(8)}`]);
  });

  it('should throw SseEventTooLongError for a line that never ends, however it is cut, holding no more than the limit', () => {
    const { decoder } = decoderWith(1000);
    decoder.feed('data: ');
    let thrown: unknown;
    let fed = 6;
    try {
      for (; fed < 10_000; fed += 100) decoder.feed('y'.repeat(100));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SseEventTooLongError);
    expect(thrown).toMatchObject({ kind: 'line', limit: 1000, message: 'An event stream sent a line longer than 1000 characters.' });
    // It stopped at the first feed past the limit, not at the end of the input.
    expect(fed).toBeLessThanOrEqual(1100);
  });

  it('should throw for a long line inside one chunk, with LF, CR and CRLF line ends alike', () => {
    for (const end of ['\n', '\r', '\r\n']) {
      const { decoder } = decoderWith(50);
      expect(() => decoder.feed(`data: ok${end}data: ${'z'.repeat(60)}${end}${end}`)).toThrow(SseEventTooLongError);
    }
    const { decoder } = decoderWith(50);
    expect(() => decoder.feed(`: ${'comment'.repeat(10)}\n`)).toThrow(expect.objectContaining({ kind: 'line' }) as Error);
  });

  it('should throw kind "event" for an event of many short data lines, and be usable after a reset', () => {
    const { events, decoder } = decoderWith(100);
    expect(() => {
      for (let index = 0; index < 100; index++) decoder.feed('data: 0123456789\n');
    }).toThrow(expect.objectContaining({ kind: 'event', limit: 100 }) as Error);
    decoder.reset();
    decoder.feed('data: after\n\n');
    expect(events.map((event) => event.data)).toEqual(['after']);
  });

  it('should never throw for a stream whose lines and events are within the limit, however it is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }).map((text) => text.replace(/[\r\n]/g, '')), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
        const stream = lines.map((line) => `data: ${line}\n\n`).join('');
        const { events, decoder } = decoderWith(36);
        const points = [...cuts.map((cut) => cut % (stream.length + 1)), stream.length].sort((a, b) => a - b);
        let start = 0;
        for (const point of points) {
          decoder.feed(stream.slice(start, point));
          start = point;
        }
        expect(events.map((event) => event.data)).toEqual(lines);
      }),
    );
  });

  it('should have a default far above any chunk, and pass the limit through SseDecoderStream', async () => {
    expect(defaultMaxSseEventLength).toBe(16 * 1024 * 1024);
    const input = new ReadableStream<string>({
      start(controller) {
        controller.enqueue(`data: ${'q'.repeat(64)}\n\n`);
        controller.close();
      },
    });
    const reader = input.pipeThrough(new SseDecoderStream({ maxEventLength: 32 })).getReader();
    await expect(reader.read()).rejects.toBeInstanceOf(SseEventTooLongError);
  });
});
