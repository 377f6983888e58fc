import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8FrameLog } from './utf8-frame-log.js';

// Well-formed text of any script (the log keeps UTF-8: no lone surrogates), some starting with
// U+FEFF; a few long frames or many short ones, both past the log's first allocations.
const shortFrame = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constantFrom('\uFEFF', '\uFEFFid: 1\n\n', '😀中文é', ''));
// Long non-ASCII text fills the log's room mid-text: encoding resumes after a grown buffer, a surrogate pair never split.
const longFrame = fc.oneof(fc.string({ unit: 'grapheme-ascii', minLength: 2000, maxLength: 6000 }), fc.string({ unit: 'grapheme', minLength: 1500, maxLength: 3000 }));
const frameLists = fc.oneof(fc.array(shortFrame, { minLength: 65, maxLength: 300 }), fc.array(fc.oneof(shortFrame, longFrame), { minLength: 1, maxLength: 12 }));

describe('Utf8FrameLog', () => {
  // A bound on the text kept as strings: none reached, reached by the first batches, or by every one.
  const pendingBounds = fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 5000 }));

  it('should give back every frame exactly, from any position, whatever batches they were written in and whatever of them is encoded, as they come and once sealed', () => {
    fc.assert(
      fc.property(frameLists, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1 }), fc.nat(), fc.boolean(), pendingBounds, (frames, sizes, pick, joinedByCaller, maxPendingChars) => {
        const log = new Utf8FrameLog(maxPendingChars === undefined ? {} : { maxPendingChars });
        const check = (written: readonly string[]) => {
          expect(log.count).toBe(written.length);
          expect(log.frames()).toEqual(written);
          const from = pick % written.length;
          expect(log.textFrom(from)).toBe(written.slice(from).join(''));
          expect(log.textFrom(0)).toBe(written.join(''));
          expect(log.textFrom(written.length - 1)).toBe(written.at(-1));
        };
        for (let at = 0, batch = 0; at < frames.length; batch++) {
          const written = frames.slice(at, at + sizes[batch % sizes.length]!);
          if (joinedByCaller) log.append(written, written.join(''));
          else log.append(written);
          at += written.length;
          check(frames.slice(0, at));
        }
        log.seal();
        check(frames);
      }),
      { numRuns: 200 },
    );
  });

  it('should take no frame once sealed, and seal once', () => {
    const log = new Utf8FrameLog();
    log.append(['data: 1\n\n']);
    log.seal();
    log.seal();
    expect(() => log.append(['data: 2\n\n'])).toThrow(/sealed/);
    expect(log.frames()).toEqual(['data: 1\n\n']);
  });

  it('should seal an empty log', () => {
    const log = new Utf8FrameLog();
    log.seal();
    expect(log.count).toBe(0);
    expect(log.frames()).toEqual([]);
  });
});
