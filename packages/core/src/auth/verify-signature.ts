/** The default tolerance between the signature's timestamp and our clock (decisions §7). */
export const defaultSignatureToleranceSeconds = 300;
/** At most this many `v1=` values are checked; a header with more is refused before any hashing. */
export const maxSignatureValues = 4;

const encoder = new TextEncoder();

async function importSecret(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

function signedPayload(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(`${timestamp}.`);
  const payload = new Uint8Array(head.length + body.length);
  payload.set(head);
  payload.set(body, head.length);
  return payload;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (hex.length !== 64 || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * The parts of `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; `undefined` when
 * it is malformed or holds more than `maxSignatureValues` signatures (each would cost a pass
 * over the body).
 */
export function parseSignatureHeader(header: string): { timestamp: string; signatures: string[] } | undefined {
  if (header.length > 2048) return undefined;
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value !== undefined && /^\d{1,12}$/.test(value)) timestamp = value;
    else if (key === 'v1' && value !== undefined && signatures.push(value) > maxSignatureValues) return undefined;
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

/** Equality of two byte strings in time that depends on their length only. */
function equalInConstantTime(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= left[index]! ^ right[index]!;
  return difference === 0;
}

/**
 * Signs a raw body the way `X-Service-Signature` expects: hex HMAC-SHA256 of `"<t>.<body>"`.
 *
 * @example
 * const header = await signRequestBody('whsec_…', bytes); // 't=1700000000,v1=…'
 */
export async function signRequestBody(secret: string, body: Uint8Array, timestampSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
  const key = await importSecret(secret);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, signedPayload(String(timestampSeconds), body)));
  return `t=${timestampSeconds},v1=${Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

export interface VerifySignatureInput {
  header: string | undefined;
  body: Uint8Array;
  /** Every secret currently valid (several during a rotation). */
  secrets: readonly string[];
  nowSeconds: number;
  toleranceSeconds?: number;
}

/**
 * The signature of `X-Service-Signature` that matches the raw body bytes (decisions §7), as
 * `t=<t>,v1=<hex>`, or `undefined`: any of at most 4 `v1`
 * values matching any secret passes, within the tolerance in both directions. The body is
 * hashed once per secret, and each `v1` compared with the result in constant time.
 */
export async function findMatchingSignature(input: VerifySignatureInput): Promise<string | undefined> {
  if (input.header === undefined || input.secrets.length === 0) return undefined;
  const parsed = parseSignatureHeader(input.header);
  if (parsed === undefined) return undefined;
  const tolerance = input.toleranceSeconds ?? defaultSignatureToleranceSeconds;
  if (Math.abs(input.nowSeconds - Number(parsed.timestamp)) > tolerance) return undefined;
  const candidates = parsed.signatures.map((signature) => [signature, hexToBytes(signature)] as const);
  if (candidates.every(([, bytes]) => bytes === undefined)) return undefined;
  const payload = signedPayload(parsed.timestamp, input.body);
  for (const secret of input.secrets) {
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', await importSecret(secret), payload));
    for (const [signature, bytes] of candidates) {
      if (bytes !== undefined && equalInConstantTime(bytes, expected)) return `t=${parsed.timestamp},v1=${signature.toLowerCase()}`;
    }
  }
  return undefined;
}

/**
 * Checks `X-Service-Signature` over the raw body bytes (decisions §7); see `findMatchingSignature`.
 */
export async function verifySignature(input: VerifySignatureInput): Promise<boolean> {
  return (await findMatchingSignature(input)) !== undefined;
}
