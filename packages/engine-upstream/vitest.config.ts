import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'engine-upstream',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
