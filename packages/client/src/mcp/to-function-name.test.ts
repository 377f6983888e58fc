import { describe, expect, it } from 'vitest';
import { toFunctionName } from './to-function-name.js';

const pattern = /^[a-zA-Z0-9_-]{1,64}$/;

describe('toFunctionName', () => {
  it('should keep a valid name and replace what the API refuses', () => {
    expect(toFunctionName('echo', new Set())).toBe('echo');
    expect(toFunctionName('files/read.text v2', new Set())).toBe('files_read_text_v2');
    expect(toFunctionName('天気', new Set())).toBe('__');
    expect(toFunctionName('', new Set())).toBe('tool');
  });

  it('should cut long names to 64 characters and keep them distinct', () => {
    const long = 'x'.repeat(80);
    const first = toFunctionName(long, new Set());
    const second = toFunctionName(long, new Set([first]));
    expect(first).toHaveLength(64);
    expect(second).toMatch(pattern);
    expect(second).not.toBe(first);
    expect(second.endsWith('_2')).toBe(true);
  });

  it('should put the prefix first', () => {
    expect(toFunctionName('echo', new Set(), 'everything_')).toBe('everything_echo');
  });
});
