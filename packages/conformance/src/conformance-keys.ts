import { QuantumChatError, type AccessControl, type Principal } from '@quantum-chat/core';

/**
 * The fixed API keys the fixtures send. Each was made once with the core's `generateApiKey`,
 * so its checksum is right and it reaches the access control; `unknownLive` is well formed
 * but belongs to no one.
 */
export const conformanceKeys = {
  /** An `elite` organisation's live key. */
  eliteLive: 'qc_live_kjOYKWJJEkiOlkiguEzDidp1oKSrLe1IaMHX',
  /** A `free` organisation's live key. */
  freeLive: 'qc_live_0McDYUX1pEqxs9hHAN0iLHWspYP8i41rDUGt',
  /** The `elite` organisation's test key. */
  eliteTest: 'qc_test_KsO9vogT954jNXvXEAJNctcDqSAW2C0ymjsb',
  /** An `elite` live key marked as requiring `X-Service-Signature` (decisions §7). */
  signedOnly: 'qc_live_pC5cNSwuES3m3iA1tETloBBlmOVmn7445ZOF',
  /** Well formed, checksum right, but unknown to the access control. */
  unknownLive: 'qc_live_jIiQ08UJNE3MORDJg6eTHJKCBET2ZA3AGbVb',
} as const;

const principals: ReadonlyMap<string, Omit<Principal, 'keyId'>> = new Map([
  [conformanceKeys.eliteLive, { organisationId: 'org_elite', plan: 'elite', kind: 'live' }],
  [conformanceKeys.freeLive, { organisationId: 'org_free', plan: 'free', kind: 'live' }],
  [conformanceKeys.eliteTest, { organisationId: 'org_elite', plan: 'elite', kind: 'test' }],
  [conformanceKeys.signedOnly, { organisationId: 'org_elite', plan: 'elite', kind: 'live', requireSignature: true }],
]);

/**
 * The access control every conformance case runs with: the keys above map to their
 * principals, and any other well-formed key is refused as `invalid_api_key`. No limits.
 */
export function createConformanceAccessControl(): AccessControl {
  return {
    async authenticate(key) {
      const principal = principals.get(key.key);
      if (principal === undefined) throw new QuantumChatError('invalid_api_key', `Incorrect API key provided: ${key.display}.`);
      return { keyId: key.display, ...principal };
    },
  };
}
