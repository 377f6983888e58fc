import { defineConfig } from 'tsup';
import { buildTarget, libraryOptions } from '../../tsup.base.js';

export default defineConfig([
  {
    ...libraryOptions,
    // The Fastify plugin. `dist/static/` belongs to the browser build below, so keep it.
    entry: ['src/index.ts'],
    clean: ['!static/**'],
    // The plugin finds its files next to itself through import.meta.url, also in the CJS build.
    shims: true,
  },
  {
    // The pages' scripts, with @quantum-chat/client bundled in: the server serves them as files.
    entry: { playground: 'src/browser/playground/main.ts', docs: 'src/browser/docs/main.ts', usage: 'src/browser/usage/main.ts' },
    outDir: 'dist/static',
    format: ['esm'],
    platform: 'browser',
    target: buildTarget,
    noExternal: [/.*/],
    // Fixed file names: the plugin serves a fixed list of files.
    splitting: false,
    minify: true,
    sourcemap: true,
    clean: true,
    // The hand-written pages and the stylesheet.
    publicDir: 'src/static',
  },
]);
