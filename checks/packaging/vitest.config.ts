import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'packaging',
    include: ['test/**/*.test.ts'],
    // npm installs and tsc runs on a 2-core machine: minutes, not seconds.
    testTimeout: 240_000,
    hookTimeout: 300_000,
    // Runs after every other project: it is CPU-heavy, and other suites measure latencies.
    sequence: { groupOrder: 3 },
  },
});
