/** A deterministic source of choices for wording. @internal */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** One of `options`; always the first when the random is "cold" (temperature 0). */
  pick<T>(options: readonly [T, ...T[]]): T;
}

const fnvOffsetBasis = 0x811c9dc5;

/**
 * FNV-1a over the UTF-16 code units of `text`: small, stable across platforms. From `from`, the
 * hash of a text before this one: `hashString(b, hashString(a))` is `hashString(a + b)`.
 * @internal
 */
function hashString(text: string, from: number = fnvOffsetBasis): number {
  let hash = from;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A mulberry32 generator seeded from a string. With `cold: true` every `pick` returns the
 * first option, which is how temperature 0 gives the plainest wording. No `Math.random`,
 * no clock: the same seed text gives the same sequence on every run.
 *
 * @example
 * const random = createSeededRandom('seed text');
 * random.pick(['Sure.', 'Of course.']);
 * @internal
 */
export function createSeededRandom(seedText: string, options: { cold?: boolean } = {}): SeededRandom {
  return seededRandomFromHash(hashString(seedText), options);
}

/** A seed text hashed once, for several generators. @internal */
export interface SeedSource {
  /** `createSeededRandom(seedText + suffix, options)`, without hashing the seed text again. */
  derive(suffix: string, options?: { cold?: boolean }): SeededRandom;
}

/**
 * A request's seed text holds its messages (a megabyte, for a long paste): hashed once here,
 * not once per generator derived from it.
 *
 * @example
 * createSeedSource('seed').derive('|answer').next() === createSeededRandom('seed|answer').next(); // true
 * @internal
 */
export function createSeedSource(seedText: string): SeedSource {
  const prefix = hashString(seedText);
  return { derive: (suffix, options = {}) => seededRandomFromHash(hashString(suffix, prefix), options) };
}

function seededRandomFromHash(hash: number, options: { cold?: boolean }): SeededRandom {
  let state = hash;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick(choices) {
      if (options.cold) return choices[0];
      return choices[Math.floor(next() * choices.length)] ?? choices[0];
    },
  };
}
