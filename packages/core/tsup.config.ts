import { defineLibraryConfig } from '../../tsup.base.js';

export default defineLibraryConfig({
  entry: ['src/index.ts', 'src/host.ts', 'src/node.ts', 'src/dialect.ts', 'src/sse.ts', 'src/schemas.ts', 'src/json-schema.ts', 'src/responses.ts'],
});
