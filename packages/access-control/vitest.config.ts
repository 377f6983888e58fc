import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'access-control',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The HTTP and multi-process tests start real servers and redis-server processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
