import type { SqlOp } from './sqlite-executor.js';

/** The most statement texts numbered; past it a text crosses whole each time, so that a flood of distinct texts cannot grow memory. */
const maxNumbered = 512;

/** Each kind of op with its text made optional (distributes over the union, which `Omit` alone would merge). */
type ByNumber<Op> = Op extends SqlOp ? Omit<Op, 'sql'> & { sql?: string; statement?: number } : never;

/** An op as it crosses to the worker: by number, with its text only the first time. @internal */
export type WireOp = ByNumber<SqlOp>;

/**
 * Numbers for the statement texts sent to the SQLite worker. Why: a statement's text (the usage
 * upsert is about a kilobyte) was cloned into every message and hashed again by the worker to
 * find its prepared statement; once numbered, it crosses once, and each later call carries a
 * small integer. The worker learns a number from the first message that carries its text, as
 * that message arrives (messages arrive in the order they were posted).
 *
 * @internal
 */
export function createStatementNumbers(): (op: SqlOp) => WireOp {
  const numbers = new Map<string, number>();
  return (op) => {
    const known = numbers.get(op.sql);
    if (known !== undefined) {
      // The rest gains its number in place: on Node 20, `{ ...rest, statement }` would make a hidden class per op.
      const { sql: _text, ...rest }: WireOp = op;
      rest.statement = known;
      return rest;
    }
    if (numbers.size >= maxNumbered) return op;
    const statement = numbers.size;
    numbers.set(op.sql, statement);
    return Object.assign({}, op, { statement });
  };
}
