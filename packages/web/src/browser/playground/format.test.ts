import { describe, expect, it } from 'vitest';
import { formatArguments, formatUsage } from './format.js';

describe('formatArguments', () => {
  it('should pretty-print JSON arguments and keep anything else as it came', () => {
    expect(formatArguments('{"location":"Paris"}')).toBe('{\n  "location": "Paris"\n}');
    expect(formatArguments('{"location":"Par')).toBe('{"location":"Par');
  });
});

describe('formatUsage', () => {
  it('should count prompt and completion tokens, and reasoning tokens when there are some', () => {
    expect(formatUsage({ prompt_tokens: 13, completion_tokens: 177, total_tokens: 190, completion_tokens_details: { reasoning_tokens: 83 } })).toBe('13 prompt + 177 completion tokens (83 reasoning)');
    expect(formatUsage({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 })).toBe('5 prompt + 7 completion tokens');
  });
});
