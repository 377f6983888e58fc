/**
 * What a browser bundle of our packages weighs: each entry is bundled from the built `dist`
 * through the packages' exports maps with esbuild (minified, ESM, for browsers), and must stay
 * within its budget and free of zod where it promises to be.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

interface Bundle {
  minified: number;
  gzipped: number;
  /** Bytes of the output that came from zod. */
  zod: number;
}

async function bundle(contents: string): Promise<Bundle> {
  const result = await build({
    stdin: { contents, resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const inputs = Object.values(result.metafile.outputs)[0]!.inputs;
  const zod = Object.entries(inputs)
    .filter(([path]) => /[\\/]zod[\\/]/u.test(path))
    .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  return { minified: code.byteLength, gzipped: gzipSync(code).byteLength, zod };
}

const KiB = 1024;

describe('bundle size budgets', () => {
  it('@quantum-chat/core/sse: the SSE decoder alone is a few KiB, without zod', async () => {
    const size = await bundle(`import { createSseDecoder } from '@quantum-chat/core/sse'; globalThis.decoder = createSseDecoder;`);
    expect(size.zod).toBe(0);
    expect(size.minified, `${size.minified} bytes minified`).toBeLessThanOrEqual(6 * KiB);
  });

  it('@quantum-chat/core/dialect: the stream reader, without zod', async () => {
    const size = await bundle(`import { createDialectReader } from '@quantum-chat/core/dialect'; globalThis.reader = createDialectReader;`);
    expect(size.zod).toBe(0);
    expect(size.minified, `${size.minified} bytes minified`).toBeLessThanOrEqual(12 * KiB);
  });

  it('@quantum-chat/client: the whole entry is under 15 KiB gzipped, without zod', async () => {
    const size = await bundle(`export * from '@quantum-chat/client';`);
    expect(size.zod).toBe(0);
    expect(size.gzipped, `${size.gzipped} bytes gzipped (${size.minified} minified)`).toBeLessThanOrEqual(15 * KiB);
  });
});
