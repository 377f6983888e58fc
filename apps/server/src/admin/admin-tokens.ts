import { createHash, timingSafeEqual } from 'node:crypto';

/** An admin token and the name the audit log knows it by. */
export interface AdminToken {
  /** Not secret: it appears in the audit log and in logs as `admin:<id>`. */
  id: string;
  token: string;
}

/** Who presented a token: `admin:<id>`. */
export interface AdminIdentity {
  id: string;
  actor: string;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Checks presented admin tokens against the configured ones in constant time: both sides are
 * hashed to 32 bytes (so a token's length leaks nothing), and every configured token is
 * compared, whichever matches.
 *
 * @example
 * const verify = createAdminTokenVerifier([{ id: 'ops', token: process.env.QUANTUM_CHAT_ADMIN_TOKEN! }]);
 * verify('qc-admin-…') // { id: 'ops', actor: 'admin:ops' } or undefined
 */
export function createAdminTokenVerifier(tokens: readonly AdminToken[]): (presented: string) => AdminIdentity | undefined {
  const known = tokens.map((token) => ({ id: token.id, hash: digest(token.token) }));
  return (presented) => {
    const hash = digest(presented);
    let found: string | undefined;
    for (const candidate of known) {
      if (timingSafeEqual(candidate.hash, hash) && found === undefined) found = candidate.id;
    }
    return found === undefined ? undefined : { id: found, actor: `admin:${found}` };
  };
}
