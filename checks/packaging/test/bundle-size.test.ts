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

/**
 * The entry's bundle; with `split`, code behind a dynamic `import()` goes to chunks of its own
 * (as Vite and webpack do), measured apart as `lazy`.
 */
async function bundle(contents: string, options: { split?: boolean } = {}): Promise<Bundle & { lazy?: Bundle }> {
  const result = await build({
    stdin: { contents, resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
    ...(options.split ? { splitting: true, outdir: 'bundle' } : {}),
  });
  const measure = (files: typeof result.outputFiles, outputs: string[]): Bundle => {
    const code = Buffer.concat(files.map((file) => file.contents));
    const zod = outputs
      .flatMap((name) => Object.entries(result.metafile.outputs[name]!.inputs))
      .filter(([path]) => /[\\/]zod[\\/]/u.test(path))
      .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
    return { minified: code.byteLength, gzipped: gzipSync(code).byteLength, zod };
  };
  const names = Object.keys(result.metafile.outputs);
  if (!options.split) return measure(result.outputFiles, names.slice(0, 1));
  const entryName = names.find((name) => result.metafile.outputs[name]!.entryPoint !== undefined)!;
  const chunkNames = names.filter((name) => name !== entryName && name.endsWith('.js'));
  const isEntry = (file: { path: string }) => file.path.endsWith(entryName);
  return {
    ...measure(result.outputFiles.filter(isEntry), [entryName]),
    lazy: measure(result.outputFiles.filter((file) => !isEntry(file) && file.path.endsWith('.js')), chunkNames),
  };
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
    const size = await bundle(`export * from '@quantum-chat/client';`, { split: true });
    expect(size.zod).toBe(0);
    expect(size.gzipped, `${size.gzipped} bytes gzipped (${size.minified} minified)`).toBeLessThanOrEqual(15 * KiB);
    // The JSON Schema validator (RE2 and @cfworker/json-schema) loads on the first tool-argument check only.
    console.log(`client entry ${size.gzipped} B gzipped; lazily loaded validator ${size.lazy!.gzipped} B gzipped`);
    expect(size.lazy!.zod).toBe(0);
    expect(size.lazy!.gzipped, `${size.lazy!.gzipped} bytes gzipped`).toBeLessThanOrEqual(64 * KiB);
  });
});
