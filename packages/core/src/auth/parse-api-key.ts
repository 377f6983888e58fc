import { randomBase62 } from '../ids.js';

export type ApiKeyKind = 'live' | 'test';

/** The key prefixes; configurable, `qc_live_` and `qc_test_` by default (decisions §6). */
export interface ApiKeyPrefixes {
  live: string;
  test: string;
}

export const defaultApiKeyPrefixes: ApiKeyPrefixes = { live: 'qc_live_', test: 'qc_test_' };

/** A key whose shape and checksum are right; nothing is known yet of whether it exists. */
export interface ParsedApiKey {
  kind: ApiKeyKind;
  /** The whole key as sent. */
  key: string;
  /** The prefix and the last 4 characters: what logs and errors may show. */
  display: string;
}

const bodyLength = 30;
const checksumLength = 6;
const base62Pattern = /^[0-9A-Za-z]+$/;

const crcTable = Int32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  return crc;
});

/** CRC-32 (IEEE) of an ASCII string: a cheap typo check, not a secret. */
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = (crc >>> 8) ^ crcTable[(crc ^ text.charCodeAt(i)) & 0xff]!;
  return (crc ^ 0xffffffff) >>> 0;
}

function checksumOf(prefixAndBody: string): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let value = crc32(prefixAndBody);
  let out = '';
  for (let i = 0; i < checksumLength; i++) {
    out = alphabet[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** The display form of a key: prefix and last 4 characters. */
export function displayApiKey(key: string, prefixes: ApiKeyPrefixes = defaultApiKeyPrefixes): string {
  const prefix = [prefixes.live, prefixes.test].find((candidate) => key.startsWith(candidate)) ?? '';
  return `${prefix}…${key.slice(-4)}`;
}

/**
 * Checks a key's prefix, alphabet, length and checksum, so a malformed key is refused
 * before any store lookup. Returns `undefined` for anything malformed.
 *
 * @example
 * parseApiKey('qc_test_…')?.kind // 'test'
 */
export function parseApiKey(key: string, prefixes: ApiKeyPrefixes = defaultApiKeyPrefixes): ParsedApiKey | undefined {
  const kind: ApiKeyKind | undefined = key.startsWith(prefixes.live) ? 'live' : key.startsWith(prefixes.test) ? 'test' : undefined;
  if (kind === undefined) return undefined;
  const prefix = prefixes[kind];
  const rest = key.slice(prefix.length);
  if (rest.length !== bodyLength + checksumLength || !base62Pattern.test(rest)) return undefined;
  const body = rest.slice(0, bodyLength);
  if (checksumOf(prefix + body) !== rest.slice(bodyLength)) return undefined;
  return { kind, key, display: displayApiKey(key, prefixes) };
}

/**
 * A new random key of a kind, with its checksum. Show it once; store only its SHA-256.
 *
 * @example
 * const key = generateApiKey('test'); // 'qc_test_…'
 */
export function generateApiKey(kind: ApiKeyKind, prefixes: ApiKeyPrefixes = defaultApiKeyPrefixes): string {
  const prefix = prefixes[kind];
  const body = randomBase62(bodyLength);
  return prefix + body + checksumOf(prefix + body);
}
