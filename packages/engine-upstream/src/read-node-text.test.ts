import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readNodeText } from './read-node-text.js';

function body(...chunks: (string | Buffer)[]): PassThrough {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return stream;
}

describe('readNodeText', () => {
  it('should decode a character split across chunks once, whole', async () => {
    const bytes = Buffer.from('{"text":"héllo 👋"}');
    const split = bytes.indexOf(0xf0) + 2;
    await expect(readNodeText(body(bytes.subarray(0, split), bytes.subarray(split)), 1000, false)).resolves.toBe('{"text":"héllo 👋"}');
    await expect(readNodeText(body(bytes), 1000, false)).resolves.toBe('{"text":"héllo 👋"}');
  });

  it('should keep the first maxBytes and let go of the rest when truncating', async () => {
    const stream = body('abc', 'defgh', 'ijk');
    await expect(readNodeText(stream, 6, true)).resolves.toBe('abcdef');
    expect(stream.destroyed).toBe(true);
  });

  it('should fail past maxBytes when not truncating, and let go of the body', async () => {
    const stream = body('abc', 'defgh');
    await expect(readNodeText(stream, 6, false)).rejects.toMatchObject({ code: 'upstream_error', message: expect.stringContaining('more than 6 bytes') });
    expect(stream.destroyed).toBe(true);
  });

  it('should fail on a body cut short or failed', async () => {
    const cut = new PassThrough();
    cut.write('{"te');
    const cutRead = readNodeText(cut, 100, false);
    cut.destroy();
    await expect(cutRead).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const failed = new PassThrough();
    const failedRead = readNodeText(failed, 100, false);
    const reason = new Error('socket hang up');
    failed.destroy(reason);
    await expect(failedRead).rejects.toBe(reason);
  });

  it('should fail at once on a body destroyed before it is read', async () => {
    const reason = new Error('aborted');
    const failed = new PassThrough();
    failed.destroy(reason);
    failed.on('error', () => undefined);
    // Its error and close events were emitted before anyone listened.
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readNodeText(failed, 100, false)).rejects.toBe(reason);
    const closed = new PassThrough();
    closed.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readNodeText(closed, 100, false)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('should read an empty body as an empty string', async () => {
    await expect(readNodeText(body(), 100, false)).resolves.toBe('');
  });
});
