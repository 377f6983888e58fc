import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'engine-llama',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
