import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/host.ts', 'src/node.ts', 'src/dialect.ts', 'src/sse.ts', 'src/schemas.ts', 'src/json-schema.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
