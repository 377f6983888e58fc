import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'runtimes',
    include: ['test/**/*.test.ts'],
    // Starting a runtime (workerd compiles its config and bundle) can take seconds on a busy machine.
    hookTimeout: 60_000,
  },
});
