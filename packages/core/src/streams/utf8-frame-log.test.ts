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
  it('should give back every frame exactly, from any position, whatever batches they were written in, before and after it is sealed', () => {
    fc.assert(
      fc.property(frameLists, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1 }), fc.nat(), fc.boolean(), (frames, sizes, pick, joinedByCaller) => {
        const log = new Utf8FrameLog();
        for (let at = 0, batch = 0; at < frames.length; batch++) {
          const written = frames.slice(at, at + sizes[batch % sizes.length]!);
          if (joinedByCaller) log.append(written, written.join(''));
          else log.append(written);
          at += written.length;
        }
        const check = () => {
          expect(log.count).toBe(frames.length);
          expect(log.frames()).toEqual(frames);
          const from = pick % frames.length;
          expect(log.textFrom(from)).toBe(frames.slice(from).join(''));
          expect(log.textFrom(0)).toBe(frames.join(''));
        };
        check();
        log.seal();
        check();
      }),
      { numRuns: 200 },
    );
  });
});
