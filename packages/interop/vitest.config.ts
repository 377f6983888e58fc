import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'interop',
    include: ['test/**/*.test.ts'],
    // Each file starts real server processes (a tokenizer load each): seconds, not milliseconds.
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
});
