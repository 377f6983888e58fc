import { defineLibraryConfig } from '../../tsup.base.js';

export default defineLibraryConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  // The optional peer: resolved where the user installed it, never bundled.
  external: ['node-llama-cpp'],
});
