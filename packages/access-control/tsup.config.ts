import { copyFileSync } from 'node:fs';
import { defineLibraryConfig } from '../../tsup.base.js';

export default defineLibraryConfig({
  entry: ['src/index.ts'],
  // The optional peers (better-sqlite3, ioredis, postgres) are loaded with createRequire(import.meta.url),
  // and the SQLite worker is found next to the bundle: the shim gives the CJS build an import.meta.url.
  shims: true,
  // The SQLite worker is plain JavaScript, run as is from the sources and from dist.
  onSuccess: async () => copyFileSync('src/sqlite-worker.mjs', 'dist/sqlite-worker.mjs'),
});
