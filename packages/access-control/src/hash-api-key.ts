import * as crypto from 'node:crypto';

/**
 * One-shot SHA-256 as hex where Node has it (`crypto.hash`, Node 20.12+): a key is hashed on
 * every request, and the one-shot form skips the `Hash` object and its stream machinery.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The SHA-256 of a key as lower-case hex: the only form a key is stored in. Keys are 36
 * random base62 characters, so an unsalted fast hash is enough (no dictionary to attack).
 *
 * @example
 * hashApiKey('qc_test_…') // '3f2a…'
 */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}
