import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createUtf8Reads } from './utf8-reads.js';

/** The same bytes through one streaming TextDecoder, as the SSE decoder used to read them. */
function decodedWhole(reads: readonly Uint8Array[]): string {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return reads.map((bytes) => decoder.decode(bytes, { stream: true })).join('') + decoder.decode();
}

function throughReads(reads: readonly Uint8Array[]): string {
  const text = createUtf8Reads();
  return reads.map((bytes) => text.decode(bytes)).join('') + text.end();
}

/** Bytes cut into reads at the given points. */
function cut(bytes: Uint8Array, points: readonly number[]): Uint8Array[] {
  const ends = [...new Set(points.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
  const reads: Uint8Array[] = [];
  let start = 0;
  for (const end of [...ends, bytes.length]) {
    reads.push(bytes.subarray(start, end));
    start = end;
  }
  return reads;
}

const encoder = new TextEncoder();

describe('createUtf8Reads', () => {
  it('should give what one streaming TextDecoder gives, however text is cut into reads', () => {
    // Mostly ASCII with characters of two, three and four bytes, as a model writes.
    const piece = fc.oneof({ weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii' }) }, fc.constantFrom('é', '—', '“', '東京', '👋', '\uFEFF'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, points) => {
        const reads = cut(encoder.encode(pieces.join('')), points);
        expect(throughReads(reads)).toBe(decodedWhole(reads));
      }),
      { numRuns: 2000 },
    );
  });

  it('should give what TextDecoder gives for any bytes, broken sequences and a cut-short end included', () => {
    const byte = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 0x7f }) }, fc.integer({ min: 0x80, max: 0xff }));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (bytes, points) => {
        const reads = cut(Uint8Array.from(bytes), points);
        expect(throughReads(reads)).toBe(decodedWhole(reads));
      }),
      { numRuns: 3000 },
    );
  });

  it('should copy an ASCII read after a character completed across two reads', () => {
    const bytes = encoder.encode('a—b');
    const text = createUtf8Reads();
    expect(text.decode(bytes.subarray(0, 2))).toBe('a');
    expect(text.decode(bytes.subarray(2, 4))).toBe('—');
    expect(text.decode(encoder.encode('plain'))).toBe('plain');
    expect(text.end()).toBe('');
  });

  it('should end a character cut short with U+FFFD', () => {
    const text = createUtf8Reads();
    expect(text.decode(encoder.encode('ok—').subarray(0, 3))).toBe('ok');
    expect(text.end()).toBe('\uFFFD');
  });
});
