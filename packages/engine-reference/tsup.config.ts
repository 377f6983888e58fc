import { defineLibraryConfig } from '../../tsup.base.js';

export default defineLibraryConfig({
  entry: ['src/index.ts'],
});
