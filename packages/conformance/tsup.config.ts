import { defineLibraryConfig } from '../../tsup.base.js';

export default defineLibraryConfig({
  entry: ['src/index.ts', 'src/portable.ts'],
  // The fixtures are found with `import.meta.url`; the shim gives the CJS build one too.
  shims: true,
  external: ['vitest'],
});
