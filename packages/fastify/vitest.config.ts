import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'fastify',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
