import { createHash } from 'node:crypto';

/**
 * The SHA-256 of a key as lower-case hex: the only form a key is stored in. Keys are 36
 * random base62 characters, so an unsalted fast hash is enough (no dictionary to attack).
 *
 * @example
 * hashApiKey('qc_test_…') // '3f2a…'
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
