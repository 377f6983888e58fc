const base62Codes = Array.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', (character) => character.charCodeAt(0));

// One `getRandomValues` call per 4 KiB of ids, not one per id: a request draws two ids, and a
// call per id was the largest single cost of a short JSON request (validated native call).
const poolSize = 4096;
const pool = new Uint8Array(poolSize);
let poolOffset = poolSize;

function nextRandomByte(): number {
  if (poolOffset === poolSize) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** `length` random base62 characters from the platform's CSPRNG (Web Crypto, no `node:`). */
export function randomBase62(length: number): string {
  const codes = new Array<number>(length);
  for (let index = 0; index < length; ) {
    const byte = nextRandomByte();
    // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps the draw uniform.
    if (byte < 248) codes[index++] = base62Codes[byte % 62]!;
  }
  // One flat string: appending character by character built a chain of `length` cons
  // strings, which an id kept for the life of its request (half a kilobyte per idle stream).
  // Spread in slices: a call takes only so many arguments.
  if (length <= 1024) return String.fromCharCode(...codes);
  let out = '';
  for (let start = 0; start < length; start += 1024) out += String.fromCharCode(...codes.slice(start, start + 1024));
  return out;
}

/** The kinds of identifier the handler makes. */
export type IdKind = 'completion' | 'tool-call' | 'request';

/** Makes an identifier of a kind; injected so that tests can compare bytes exactly. */
export type GenerateId = (kind: IdKind) => string;

const prefixes: Record<IdKind, string> = { completion: 'chatcmpl-', 'tool-call': 'call_', request: 'req_' };

/** The default id maker: `chatcmpl-<24 base62>`, `call_<24 base62>`, `req_<24 base62>`. */
export const generateRandomId: GenerateId = (kind) => prefixes[kind] + randomBase62(24);

/** A deterministic id maker for tests: `chatcmpl-000…1`, `call_000…2`, ... */
export function createSequentialIdGenerator(): GenerateId {
  let counter = 0;
  return (kind) => prefixes[kind] + String(++counter).padStart(24, '0');
}
