import { anyString, containingPlaceholder } from './fixture-schemas.js';

/**
 * Fills the expected body's placeholders with the actual values they stand for: `"<any>"` any
 * non-empty string, `"<contains:TEXT>"` any string holding TEXT (a message that must name what
 * it refuses). Anything else is left for the comparison to report.
 */
export function fillPlaceholders(expected: unknown, actual: unknown): unknown {
  if (expected === anyString) return typeof actual === 'string' && actual !== '' ? actual : expected;
  const contained = typeof expected === 'string' ? containingPlaceholder.exec(expected)?.[1] : undefined;
  if (contained !== undefined) return typeof actual === 'string' && actual.includes(contained) ? actual : expected;
  if (Array.isArray(expected)) return expected.map((item, index) => fillPlaceholders(item, Array.isArray(actual) ? actual[index] : undefined));
  if (typeof expected === 'object' && expected !== null) {
    const source = typeof actual === 'object' && actual !== null ? (actual as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(expected).map(([key, value]) => [key, fillPlaceholders(value, source[key])]));
  }
  return expected;
}

/** The key order of every object in a JSON value, as paths: compared so that `reasoning_content` must precede `content`. */
export function keyOrder(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => keyOrder(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const keys = Object.keys(value);
  return [`${path}: ${keys.join(', ')}`, ...keys.flatMap((key) => keyOrder((value as Record<string, unknown>)[key], `${path}.${key}`))];
}
