import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'fuzz',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The suites start real servers and measure timing: one file at a time on a small machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
