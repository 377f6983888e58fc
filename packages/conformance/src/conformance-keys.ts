import { QuantumChatError, type AccessControl, type Admission, type Principal } from '@quantum-chat/core';

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
  /** A `free` live key whose organisation is out of requests: every chat request is a 429. */
  rateLimited: 'qc_live_fmZwzvv9K89nLZE1Ae5XitSNn6vsK20PuDct',
  /** A `free` live key whose organisation used its daily tokens: 429 `insufficient_quota`. */
  quotaExhausted: 'qc_live_yoIqVJzbOGMrsXG5KJ0VMbAAhB0m1u0CMXze',
  /** Well formed, checksum right, but unknown to the access control. */
  unknownLive: 'qc_live_jIiQ08UJNE3MORDJg6eTHJKCBET2ZA3AGbVb',
} as const;

const principals: ReadonlyMap<string, Omit<Principal, 'keyId'>> = new Map([
  [conformanceKeys.eliteLive, { organisationId: 'org_elite', plan: 'elite', kind: 'live' }],
  [conformanceKeys.freeLive, { organisationId: 'org_free', plan: 'free', kind: 'live' }],
  [conformanceKeys.eliteTest, { organisationId: 'org_elite', plan: 'elite', kind: 'test' }],
  [conformanceKeys.signedOnly, { organisationId: 'org_elite', plan: 'elite', kind: 'live', requireSignature: true }],
  [conformanceKeys.rateLimited, { organisationId: 'org_busy', plan: 'free', kind: 'live' }],
  [conformanceKeys.quotaExhausted, { organisationId: 'org_spent', plan: 'free', kind: 'live' }],
]);

/** What the free plan reports on an admitted request (decisions §5: x-ratelimit-*). */
const freePlanHeaders = {
  'x-ratelimit-limit-requests': '60',
  'x-ratelimit-remaining-requests': '59',
  'x-ratelimit-reset-requests': '1s',
  'x-ratelimit-limit-tokens': '100000',
  'x-ratelimit-remaining-tokens': '95904',
  'x-ratelimit-reset-tokens': '2s',
};

function admit(principal: Principal): Admission {
  if (principal.organisationId === 'org_busy') {
    throw new QuantumChatError('rate_limit_exceeded', 'Rate limit reached for requests per minute (60). Retry after 7 s.', {
      headers: { 'retry-after': '7', 'retry-after-ms': '6500', ...freePlanHeaders, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '6.5s' },
    });
  }
  if (principal.organisationId === 'org_spent') {
    throw new QuantumChatError('insufficient_quota', 'You exceeded your daily token quota (1,000,000).', { headers: { 'x-should-retry': 'false' } });
  }
  return { headers: principal.plan === 'free' ? freePlanHeaders : {}, settle: () => undefined };
}

/**
 * The access control every conformance case runs with: the keys above map to their
 * principals, and any other well-formed key is refused as `invalid_api_key`. Limits are
 * fixed per organisation: free keys get `x-ratelimit-*` headers, two keys are always refused.
 */
export function createConformanceAccessControl(): AccessControl {
  return {
    async authenticate(key) {
      const principal = principals.get(key.key);
      if (principal === undefined) throw new QuantumChatError('invalid_api_key', `Incorrect API key provided: ${key.display}.`);
      return { keyId: key.display, ...principal };
    },
    admit: async (principal) => admit(principal),
  };
}
