import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createStatementNumbers } from './statement-numbers.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

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

  it('should give every numbered op one hidden class, not one each (each op crosses to the worker)', () => {
    const numbered = createStatementNumbers();
    numbered(op('SELECT 1'));
    // Past the first calls V8 builds such objects through its fast paths, where a shape can go wrong.
    const ops = Array.from({ length: 50 }, () => numbered(op('SELECT 1')));
    expect(ops.filter((each) => !sameHiddenClass(each, ops[0]!))).toHaveLength(0);
  });
});
