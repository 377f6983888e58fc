import type { AccessControl, Principal } from '../auth/access-control.js';
import { parseApiKey, type ApiKeyPrefixes } from '../auth/parse-api-key.js';
import { verifySignature } from '../auth/verify-signature.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatHttpRequest } from './chat-http-types.js';
import { headerValue } from './read-request-body.js';

export interface AuthenticationSettings {
  accessControl: AccessControl;
  prefixes: ApiKeyPrefixes;
  signingSecrets: readonly string[];
  signatureToleranceSeconds?: number;
  nowSeconds: () => number;
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
 * asked; the signature is checked when the header is sent and the server has secrets, and
 * is required for keys marked so.
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
  if (principal.requireSignature || (signatureHeader !== undefined && settings.signingSecrets.length > 0)) {
    if (bodyBytes === undefined) {
      throw new QuantumChatError('invalid_signature', 'The signature cannot be checked: the raw body was consumed by another body parser.');
    }
    const valid = await verifySignature({
      header: signatureHeader,
      body: bodyBytes,
      secrets: settings.signingSecrets,
      nowSeconds: settings.nowSeconds(),
      ...(settings.signatureToleranceSeconds !== undefined ? { toleranceSeconds: settings.signatureToleranceSeconds } : {}),
    });
    if (!valid) throw new QuantumChatError('invalid_signature', 'The X-Service-Signature header is missing, expired or does not match the body.');
  }
  return principal;
}
