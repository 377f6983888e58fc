// The core's stream frame encoder is internal (not exported from @quantum-chat/core), so the
// bench compiles its source file with esbuild into .cache/ and imports that: the exact code the
// handler runs, without widening the core's public surface.
import { mkdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const source = fileURLToPath(new URL('../../../../packages/core/src/wire/stream-frame-encoder.ts', import.meta.url));
const outDirectory = fileURLToPath(new URL('../../.cache/', import.meta.url));

/** Compiles and imports the frame encoder; resolves to `createStreamFrameEncoder`. */
export async function loadFrameEncoder() {
  mkdirSync(outDirectory, { recursive: true });
  const outfile = `${outDirectory}stream-frame-encoder.mjs`;
  await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'error' });
  const module = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  return module.createStreamFrameEncoder;
}
