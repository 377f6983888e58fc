import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'interop',
    include: ['test/**/*.test.ts'],
    // Each file starts a real server process (a tokenizer load) and makes keys with the real CLI.
    hookTimeout: 60_000,
    testTimeout: 30_000,
    // The files mostly wait on their own server process: run them side by side even on 2 CPUs.
    // Vitest runs projects with their own worker count as a group of their own.
    maxWorkers: 3,
    sequence: { groupOrder: 1 },
  },
});
