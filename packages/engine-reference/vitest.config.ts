import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'engine-reference',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
