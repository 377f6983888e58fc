import { describe, expect, it } from 'vitest';
import { createStatementNumbers } from './statement-numbers.js';

describe('createStatementNumbers', () => {
  const op = (sql: string) => ({ sql, params: [1], mode: 'get' as const });

  it('should send a text with its number once, then the number alone', () => {
    const numbered = createStatementNumbers();
    expect(numbered(op('SELECT 1'))).toEqual({ sql: 'SELECT 1', params: [1], mode: 'get', statement: 0 });
    expect(numbered(op('SELECT 2'))).toEqual({ sql: 'SELECT 2', params: [1], mode: 'get', statement: 1 });
    const again = numbered(op('SELECT 1'));
    expect(again).toEqual({ params: [1], mode: 'get', statement: 0 });
    expect('sql' in again).toBe(false);
  });

  it('should stop numbering past 512 texts, sending the others whole every time', () => {
    const numbered = createStatementNumbers();
    for (let index = 0; index < 512; index++) numbered(op(`SELECT ${index}`));
    expect(numbered(op('SELECT 512'))).toEqual(op('SELECT 512'));
    expect(numbered(op('SELECT 512'))).toEqual(op('SELECT 512'));
    expect(numbered(op('SELECT 511'))).toEqual({ params: [1], mode: 'get', statement: 511 });
  });
});
