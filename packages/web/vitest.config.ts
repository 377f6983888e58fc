import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'web',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The browser tests start a server process and Chromium.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
