import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // The optional peers (better-sqlite3, ioredis) are loaded with createRequire(import.meta.url):
  // the shim gives the CJS build an import.meta.url.
  shims: true,
});
