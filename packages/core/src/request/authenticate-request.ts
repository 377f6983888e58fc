import type { AccessControl, Principal } from '../auth/access-control.js';
import { parseApiKey, type ApiKeyPrefixes } from '../auth/parse-api-key.js';
import type { SignatureReplayGuard } from '../auth/signature-replay-guard.js';
import { signedContentClaim } from '../auth/signed-content-claim.js';
import { defaultSignatureToleranceSeconds, findMatchingSignature, parseSignatureHeader } from '../auth/verify-signature.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatHttpRequest } from '../contract/chat-http-types.js';
import { headerValue } from './read-request-body.js';

export interface AuthenticationSettings {
  accessControl: AccessControl;
  prefixes: ApiKeyPrefixes;
  signingSecrets: readonly string[];
  signatureToleranceSeconds?: number;
  /** Every chat request must be signed (decisions §7), not only those of keys marked so. */
  requireSignatures?: boolean;
  /** Refuses a signature seen before within the tolerance window. */
  replayGuard?: SignatureReplayGuard;
  nowSeconds: () => number;
}

function invalidSignature(message: string): QuantumChatError {
  return new QuantumChatError('invalid_signature', message);
}

/**
 * Checks `X-Service-Signature` (decisions §7): cheap refusals first (no header, a malformed
 * one, more than 4 `v1` values), then one HMAC of the body per secret, then the replay guard,
 * which claims the signed content with the key (`signedContentClaim`), not the `v1` text.
 */
async function checkSignature(header: string | undefined, bodyBytes: Uint8Array | undefined, apiKey: string, settings: AuthenticationSettings): Promise<void> {
  if (header === undefined) throw invalidSignature('This request must be signed: send an X-Service-Signature header.');
  if (settings.signingSecrets.length === 0) throw invalidSignature('The X-Service-Signature header cannot be checked: the server has no signing secrets.');
  if (parseSignatureHeader(header) === undefined) {
    throw invalidSignature('The X-Service-Signature header is malformed: send `t=<unix seconds>,v1=<hex HMAC-SHA256>` with at most 4 v1 values.');
  }
  if (bodyBytes === undefined) throw invalidSignature('The signature cannot be checked: the raw body was consumed by another body parser.');
  const tolerance = settings.signatureToleranceSeconds ?? defaultSignatureToleranceSeconds;
  const matched = await findMatchingSignature({ header, body: bodyBytes, secrets: settings.signingSecrets, nowSeconds: settings.nowSeconds(), toleranceSeconds: tolerance });
  if (matched === undefined) throw invalidSignature('The X-Service-Signature header is expired or does not match the body.');
  if (settings.replayGuard === undefined) return;
  const claim = await signedContentClaim({ timestamp: matched.slice(2, matched.indexOf(',')), body: bodyBytes, apiKey });
  // A signature is valid for the tolerance on either side of its timestamp: remembered that long.
  if (!(await settings.replayGuard.claim(claim, 2 * tolerance * 1000))) {
    throw invalidSignature('This X-Service-Signature was already used: each signature is accepted once.');
  }
}

/** The key of `Authorization: Bearer <key>`, `undefined` when the header is absent. */
function bearerKey(request: ChatHttpRequest): string | undefined {
  const header = headerValue(request.headers, 'authorization');
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new QuantumChatError('invalid_api_key', 'The Authorization header must be `Bearer <API key>`.');
  return match[1];
}

/**
 * Resolves the caller (decisions §5–§7). A malformed key is refused before the store is
 * asked. When the server has signing secrets, a signature that is sent is always checked;
 * a request without one is refused when the server requires signatures or the key is marked
 * as requiring them, and accepted otherwise.
 */
export async function authenticateRequest(
  request: ChatHttpRequest,
  bodyBytes: Uint8Array | undefined,
  settings: AuthenticationSettings,
  required: boolean,
): Promise<Principal | undefined> {
  const key = bearerKey(request);
  if (key === undefined) {
    if (!required) return undefined;
    throw new QuantumChatError('missing_api_key', 'You did not provide an API key. Send it as `Authorization: Bearer <API key>`.');
  }
  const parsed = parseApiKey(key, settings.prefixes);
  if (parsed === undefined) throw new QuantumChatError('invalid_api_key', 'Incorrect API key provided: the key is malformed.');
  const principal = await settings.accessControl.authenticate(parsed);
  const signatureHeader = headerValue(request.headers, 'x-service-signature');
  const mustSign = required && (principal.requireSignature === true || settings.requireSignatures === true);
  if (mustSign || (required && signatureHeader !== undefined && settings.signingSecrets.length > 0)) await checkSignature(signatureHeader, bodyBytes, key, settings);
  return principal;
}
