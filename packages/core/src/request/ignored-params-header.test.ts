import { describe, expect, it } from 'vitest';
import { ignoredParamsHeader, maxIgnoredParamsHeaderLength } from './ignored-params-header.js';

describe('ignoredParamsHeader', () => {
  it('should name unknown fields so that any header can carry them', () => {
    const names = ['frobnicate', 'naïve', 'a\r\nb', 'x, y', '\ud800', '𑰧', '100%'];
    expect(ignoredParamsHeader(names)).toBe('frobnicate, na%C3%AFve, a%0D%0Ab, x%2C%20y, %EF%BF%BD, %F0%91%B0%A7, 100%25');
  });

  it('should list names whole while they fit, then end with a last element "..."', () => {
    const names = Array.from({ length: 200 }, (_, index) => `unknown_field_${String(index).padStart(3, '0')}`);
    const header = ignoredParamsHeader(names);
    expect(header.length).toBeLessThanOrEqual(maxIgnoredParamsHeaderLength);
    const parts = header.split(', ');
    expect(parts.at(-1)).toBe('...');
    // Every listed name is whole, in body order, and as many as fit are listed.
    expect(parts.slice(0, -1)).toEqual(names.slice(0, parts.length - 1));
    expect(`${parts.slice(0, -1).join(', ')}, ${names[parts.length - 1]}, ...`.length).toBeGreaterThan(maxIgnoredParamsHeaderLength);
  });

  it('should never cut a name in half, however long it is', () => {
    expect(ignoredParamsHeader(['a'.repeat(5000)])).toBe('...');
    expect(ignoredParamsHeader(['short', 'é'.repeat(400), 'next'])).toBe('short, ...');
    // A name of exactly what fits is listed whole, with nothing after it.
    expect(ignoredParamsHeader(['b'.repeat(maxIgnoredParamsHeaderLength)])).toBe('b'.repeat(maxIgnoredParamsHeaderLength));
  });

  it('should give "..." only when names were left out, and stay ASCII', () => {
    const names = ['x'.repeat(490), 'y'.repeat(490)];
    expect(ignoredParamsHeader(names)).toBe(names.join(', '));
    const header = ignoredParamsHeader(['ü'.repeat(100), 'z'.repeat(900)]);
    expect(header).toMatch(/^[\x20-\x7e]*$/u);
    expect(header.endsWith(', ...')).toBe(true);
  });

  it('should read no more of a flood of names than the header can hold', () => {
    const names = Array.from({ length: 100_000 }, (_, index) => `k${index}`);
    const header = ignoredParamsHeader(names);
    expect(header.length).toBeLessThanOrEqual(maxIgnoredParamsHeaderLength);
    expect(header.endsWith(', ...')).toBe(true);
  });
});
