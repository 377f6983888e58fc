import type { ArgumentHints } from './argument-hints.js';
import type { JsonSchema } from './resolve-schema.js';

interface Bounds {
  lower: number | undefined;
  upper: number | undefined;
}

function boundsOf(schema: JsonSchema, integer: boolean): Bounds {
  let lower = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  let upper = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  // Draft 6+ exclusive bounds are numbers; draft 4 booleans modify minimum/maximum.
  const step = integer ? 1 : 1e-6;
  if (typeof schema.exclusiveMinimum === 'number') lower = Math.max(lower ?? -Infinity, schema.exclusiveMinimum + step);
  else if (schema.exclusiveMinimum === true && lower !== undefined) lower += step;
  if (typeof schema.exclusiveMaximum === 'number') upper = Math.min(upper ?? Infinity, schema.exclusiveMaximum - step);
  else if (schema.exclusiveMaximum === true && upper !== undefined) upper -= step;
  if (integer) {
    lower = lower === undefined ? undefined : Math.ceil(lower);
    upper = upper === undefined ? undefined : Math.floor(upper);
  }
  return { lower, upper };
}

function fits(value: number, bounds: Bounds, integer: boolean): boolean {
  return (!integer || Number.isInteger(value)) && (bounds.lower === undefined || value >= bounds.lower) && (bounds.upper === undefined || value <= bounds.upper);
}

function clamp(value: number, bounds: Bounds): number {
  if (bounds.lower !== undefined && value < bounds.lower) return bounds.lower;
  if (bounds.upper !== undefined && value > bounds.upper) return bounds.upper;
  return value;
}

/**
 * A number for a property: the next number of the message that fits the bounds (so
 * `add(a, b)` for "what is 12 plus 30" gets 12 and 30), else the `default`, else 1 (0 for
 * the minimal fallback), kept within minimum/maximum (exclusive ones too) and `multipleOf`.
 *
 * @example
 * generateNumberValue({ type: 'integer', minimum: 1, maximum: 10 }, true, hints, { used: 0 });
 * @internal
 */
export function generateNumberValue(schema: JsonSchema, integer: boolean, hints: ArgumentHints | undefined, cursor: { used: number }): number {
  const bounds = boundsOf(schema, integer);
  let value: number | undefined;
  if (hints) {
    while (value === undefined && cursor.used < hints.numbers.length) {
      const candidate = hints.numbers[cursor.used++];
      if (candidate !== undefined && fits(candidate, bounds, integer)) value = candidate;
    }
  }
  if (value === undefined && typeof schema.default === 'number') value = schema.default;
  value = clamp(value ?? (hints ? 1 : 0), bounds);
  if (integer) value = clamp(Math.round(value), bounds);
  const multipleOf = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (multipleOf !== undefined && !Number.isInteger(value / multipleOf)) {
    value = Math.ceil(value / multipleOf) * multipleOf;
    if (bounds.upper !== undefined && value > bounds.upper) value = Math.floor(bounds.upper / multipleOf) * multipleOf;
  }
  return value;
}
