import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryStreamStore, type MemoryStreamStore } from './memory-stream-store.js';

const meta = { owner: 'acme:live', kind: 'chat:quantum', createdAt: 0 };
const frame = (seq: number) => `id: ${seq}\nevent: message\ndata: {"n":${seq}}\n\n`;

function writeStream(store: ReturnType<typeof createMemoryStreamStore>, id: string, frames: number): number {
  store.create(id, meta);
  let chars = 0;
  for (let seq = 1; seq <= frames; seq++) {
    store.append(id, [{ seq, frame: frame(seq) }]);
    chars += frame(seq).length;
  }
  store.end(id);
  return chars;
}

describe('createMemoryStreamStore', () => {
  it('should hold 1,000 finished streams within the retention, and exactly their frames', async () => {
    const store = createMemoryStreamStore();
    let total = 0;
    for (let index = 0; index < 1000; index++) total += writeStream(store, `s${index}`, 50);
    expect(store.size()).toEqual({ streams: 1000, chars: total });
    expect((await store.readAll('s999'))?.length).toBe(50);
  });

  it('should forget ended streams after the retention, and the oldest first past maxRetainedChars', async () => {
    let time = 0;
    const store = createMemoryStreamStore({ retentionMs: 1000, maxRetainedChars: 10_000, now: () => time });
    const perStream = writeStream(store, 'first', 50);
    for (let index = 0; index < 20; index++) writeStream(store, `s${index}`, 50);
    // Past the bound: whole streams went, oldest first, until the rest fit.
    expect(store.size().chars).toBeLessThanOrEqual(10_000);
    expect(store.size().streams).toBe(Math.floor(10_000 / perStream));
    expect(await store.describe('first')).toBeUndefined();
    expect(await store.describe('s19')).toBeDefined();
    time += 1000;
    expect(await store.describe('s19')).toBeUndefined();
    store.create('next', meta);
    expect(store.size().streams).toBe(1);
  });

  /** Heap growth (after full collections) while `write` fills a new store; `write` answers the characters it wrote. */
  function heapGrowth(write: (store: MemoryStreamStore) => number): { grown: number; chars: number; store: MemoryStreamStore } {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const store = createMemoryStreamStore();
    collect();
    const before = process.memoryUsage().heapUsed;
    const chars = write(store);
    collect();
    return { grown: process.memoryUsage().heapUsed - before, chars, store };
  }

  it('should keep ended streams\' frames off the JavaScript heap', () => {
    // As strings, retained frames with one non-Latin-1 character took two bytes a character of
    // heap: the store's default bound (256 Mi characters) was past the heap limit of a small container.
    const { grown, chars, store } = heapGrowth((store) => {
      let written = 0;
      for (let index = 0; index < 200; index++) {
        store.create(`s${index}`, meta);
        for (let seq = 1; seq <= 256; seq++) {
          const value = `id: ${seq}\nevent: message\ndata: {"delta":{"content":" word ${index}.${seq}${seq === 7 ? '…' : ''}"},"padding":"${'x'.repeat(200)}"}\n\n`;
          store.append(`s${index}`, [{ seq, frame: value }]);
          written += value.length;
        }
        store.end(`s${index}`);
      }
      return written;
    });
    expect(store.size()).toEqual({ streams: 200, chars });
    // Bookkeeping only: the frames themselves (over 13 Mi characters) are not on the heap.
    expect(grown).toBeLessThan(chars / 10);
  });

  it('should keep a long running stream\'s frames off the heap but for its last few', () => {
    // A running stream's batches stay strings until its end, up to a bound (64 Ki characters):
    // past it they are encoded, so a long run is not held as heap for its whole length.
    const { grown, chars, store } = heapGrowth((store) => {
      let written = 0;
      store.create('long', meta);
      for (let seq = 1; seq <= 4000; seq++) {
        const value = `id: ${seq}\ndata: {"delta":{"content":" word ${seq}${seq % 100 === 7 ? '…' : ''}"},"padding":"${'x'.repeat(1000)}"}\n\n`;
        store.append('long', [{ seq, frame: value }]);
        written += value.length;
      }
      return written;
    });
    expect(store.size()).toEqual({ streams: 1, chars });
    // Over 4 Mi characters written, two bytes each as strings; the pending bound's are at most 128 KiB.
    expect(grown).toBeLessThan(chars / 10);
  });

  it('should answer pulls made while one waits in order, each with the steps after the one before', async () => {
    const store = createMemoryStreamStore();
    store.create('s', meta);
    const reader = store.follow('s', { after: 0 });
    const pulls = [reader.next(), reader.next(), reader.next()];
    store.append('s', [{ seq: 1, frame: frame(1) }]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    store.append('s', [{ seq: 2, frame: frame(2) }]);
    store.end('s');
    const steps = await Promise.all(pulls);
    expect(steps.map((step) => (step.done === true ? 'done' : [step.value.text, step.value.lastSeq, step.value.last]))).toEqual([
      [frame(1), 1, false],
      [frame(2), 2, true],
      'done',
    ]);
  });

  it('should let what a reader read go with its read, not at the next full collection', async () => {
    // A reader's wake-up was a closure made per read and kept on the reader: V8's young-generation
    // collections then kept every text read since the last one, and promoted them (a resumable
    // stream's whole text, each time), until a full collection. Old-generation growth over young
    // collections only shows it.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as (options?: { type: 'minor' }) => void;
    const oldGenerationBytes = () =>
      getHeapSpaceStatistics()
        .filter((space) => space.space_name === 'old_space' || space.space_name === 'large_object_space')
        .reduce((total, space) => total + space.space_used_size, 0);
    const store = createMemoryStreamStore({ retentionMs: 1 });
    const line = `data: {"delta":{"content":"a word … ${'x'.repeat(80)}"}}\n\n`;
    /** One stream read by a reader that waits from its start, as a resumable stream's own client does; answers the characters read. */
    const readOneStream = async (id: string) => {
      store.create(id, meta);
      const reader = store.follow(id, { after: 0 });
      const first = reader.next();
      store.append(id, Array.from({ length: 256 }, (_, index) => ({ seq: index + 1, frame: `id: ${index + 1}\n${line}` })));
      store.end(id);
      let read = 0;
      for (let step = await first; step.done !== true; step = await reader.next()) {
        read += step.value.text.length;
        if (step.value.last) break;
      }
      await new Promise((resolve) => setImmediate(resolve));
      return read;
    };
    for (let index = 0; index < 50; index++) await readOneStream(`warm${index}`);
    collect();
    const before = oldGenerationBytes();
    let read = 0;
    for (let index = 0; index < 100; index++) read += await readOneStream(`s${index}`);
    // Twice: what outlives one young collection is promoted by the next.
    collect({ type: 'minor' });
    collect({ type: 'minor' });
    // Kept, the texts read were two bytes a character (the ellipsis): over 5 MB here.
    expect(oldGenerationBytes() - before).toBeLessThan(read / 4);
  });

  it('should keep a running stream whatever its age, and wake its followers as frames come', async () => {
    let time = 0;
    const store = createMemoryStreamStore({ retentionMs: 10, now: () => time });
    store.create('live', meta);
    const follower = store.follow('live', { after: 0 });
    const pending = follower.next();
    time += 1_000_000;
    store.append('live', [{ seq: 1, frame: frame(1) }, { seq: 2, frame: frame(2) }]);
    expect((await pending).value).toEqual({ text: frame(1) + frame(2), lastSeq: 2, last: false });
    store.end('live');
    expect((await follower.next()).value).toEqual({ text: '', lastSeq: 2, last: true });
    await expect(store.follow('live', { after: 1 }).next()).resolves.toMatchObject({ value: { text: frame(2), last: true } });
  });

  it('should leave no wake-up timer behind once the end has woken its followers', async () => {
    vi.useFakeTimers();
    try {
      const store = createMemoryStreamStore();
      store.create('s', meta);
      const follower = store.follow('s', { after: 0 });
      const first = follower.next();
      // Frames wake the waiting follower on the next timer turn; the end, before it, at once.
      store.append('s', [{ seq: 1, frame: frame(1) }]);
      expect(vi.getTimerCount()).toBe(1);
      store.end('s');
      expect((await first).value).toEqual({ text: frame(1), lastSeq: 1, last: true });
      // Nothing is left to fire: a pending timer would hold the ended stream, frames and all.
      expect(vi.getTimerCount()).toBe(0);
      // The same when the only follower left before the end.
      store.create('left', meta);
      const leaving = store.follow('left', { after: 0 });
      const waiting = leaving.next();
      store.append('left', [{ seq: 1, frame: frame(1) }]);
      await leaving.return!();
      await waiting;
      store.end('left');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('should give back a stream\'s frames exactly, running or ended, from any position, whatever their characters', async () => {
    // Frames as the encoder writes them: JSON text (no lone surrogates), any script, emoji, a leading BOM.
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('\uFEFFhi', 'é', '😀', '中文'));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 30 }), fc.nat(), fc.nat(), async (texts, pickRunning, pickEnded) => {
        const store = createMemoryStreamStore();
        const frames = texts.map((content, index) => `id: ${index + 1}\ndata: ${JSON.stringify({ content })}\n\n`);
        store.create('s', meta);
        // A reader waiting at the live edge gets the frames as they were appended.
        const waiting = store.follow('s', { after: 0 }).next();
        frames.forEach((value, index) => store.append('s', [{ seq: index + 1, frame: value }]));
        expect((await waiting).value).toEqual({ text: frames.join(''), lastSeq: frames.length, last: false });
        // A reader of the running stream gets what is there, from where it asks.
        const running = pickRunning % frames.length;
        expect((await store.follow('s', { after: running }).next()).value).toEqual({ text: frames.slice(running).join(''), lastSeq: frames.length, last: false });
        store.end('s');
        expect(await store.readAll('s')).toEqual(frames.map((value, index) => ({ seq: index + 1, frame: value })));
        const after = pickEnded % (frames.length + 1);
        expect((await store.follow('s', { after }).next()).value).toEqual({ text: frames.slice(after).join(''), lastSeq: frames.length, last: true });
      }),
      { numRuns: 300 },
    );
  });
});
