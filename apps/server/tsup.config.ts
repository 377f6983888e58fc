import { defineLibraryConfig } from '../../tsup.base.js';

export default defineLibraryConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  // Fastify's schema compilers are required on first use (schema-compilers-on-first-use.ts): the shim gives the CJS build an import.meta.url.
  shims: true,
});
