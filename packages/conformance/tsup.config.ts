import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/portable.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // The fixtures are found with `import.meta.url`; the shim gives the CJS build one too.
  shims: true,
  external: ['vitest'],
});
