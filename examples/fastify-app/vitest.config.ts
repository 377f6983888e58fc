import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'example-fastify-app',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
