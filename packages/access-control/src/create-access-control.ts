import {
  QuantumChatError,
  randomBase62,
  type AccessControl,
  type Admission,
  type AdmissionDemand,
  type AdmissionOutcome,
  type Principal,
} from '@quantum-chat/core';
import { createLimiter, type Limiter } from './create-limiter.js';
import { hashApiKey } from './hash-api-key.js';
import type { KeyStore } from './key-store.js';
import { limitError } from './limit-error.js';
import { defaultPlanLimits, resolveLimits, type Limits, type PlanLimits } from './plan-limits.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

export interface AccessControlOptions {
  store: KeyStore;
  /** In memory by default; pass `createLimiter({ redis })` to share limits between instances. */
  limiter?: Limiter;
  /** The defaults of each plan (decisions §6); an organisation's overrides apply on top. */
  planDefaults?: PlanLimits;
  /** Reporting only: failures to record usage or to credit tokens back. */
  onError?: (error: unknown) => void;
}

/** The access control of the store-backed server: `AccessControl` plus what operators need. */
export interface StoreAccessControl extends AccessControl {
  admit(principal: Principal, demand: AdmissionDemand): Promise<Admission>;
  /** The limits of a principal's organisation, after its overrides. */
  limitsOf(principal: Principal): Limits;
  /** The limit bucket of a principal: test keys count apart from live ones (decisions §6). */
  bucketOf(principal: Principal): string;
  readonly limiter: Limiter;
}

interface KeyContext {
  keyId: string;
  limits: Limits;
}

/**
 * Keys, plans, quotas and rate limits behind the core's `AccessControl` seam: keys are looked
 * up by SHA-256, requests count against their organisation's limits (test keys in their own
 * buckets), tokens are reserved as `prompt + max_tokens` and settled to real usage, and each
 * settled request is recorded in the store.
 *
 * @example
 * const accessControl = createAccessControl({ store: createSqliteKeyStore('.data/keys.sqlite') });
 * const handler = createChatHandler({ engine, accessControl });
 */
export function createAccessControl(options: AccessControlOptions): StoreAccessControl {
  const { store } = options;
  const limiter = options.limiter ?? createLimiter();
  const planDefaults = options.planDefaults ?? defaultPlanLimits;
  // The handler hands `admit` the principal `authenticate` returned; what it needs rides here.
  const contexts = new WeakMap<Principal, KeyContext>();
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // Reporting must never alter the outcome.
    }
  };

  const limitsOf = (principal: Principal) => contexts.get(principal)?.limits ?? resolveLimits(principal.plan, {}, planDefaults);
  const bucketOf = (principal: Principal) => `${principal.organisationId}:${principal.kind}`;

  return {
    limiter,
    limitsOf,
    bucketOf,
    async authenticate(key) {
      const found = await store.findKeyByHash(hashApiKey(key.key));
      if (found === undefined || found.key.revoked) {
        throw new QuantumChatError('invalid_api_key', `Incorrect API key provided: ${key.display}. ${found ? 'The key was revoked.' : 'No such key exists.'}`);
      }
      const principal: Principal = {
        keyId: key.display,
        organisationId: found.organisation.name,
        plan: found.organisation.plan,
        kind: found.key.kind,
        ...(found.key.requireSignature ? { requireSignature: true } : {}),
      };
      contexts.set(principal, { keyId: found.key.id, limits: resolveLimits(found.organisation.plan, found.organisation.limits, planDefaults) });
      return principal;
    },
    async admit(principal, demand) {
      const reserved = Math.max(0, Math.round(demand.promptTokens)) + Math.max(0, Math.round(demand.maxTokens));
      const decision = await limiter.reserve(bucketOf(principal), limitsOf(principal), reserved);
      const scope = `organisation '${principal.organisationId}'${principal.kind === 'test' ? ', test keys' : ''}`;
      if (!decision.admitted) throw limitError(decision, scope);
      const keyId = contexts.get(principal)?.keyId ?? principal.keyId;
      // Not yet in the core's AdmissionDemand; used when it is (see the README).
      const requestId = (demand as AdmissionDemand & { requestId?: string }).requestId ?? `req_local_${randomBase62(16)}`;
      let settled = false;
      return {
        headers: rateLimitHeaders(decision.state),
        async settle(outcome: AdmissionOutcome) {
          if (settled) return;
          settled = true;
          try {
            await decision.settle(outcome.promptTokens + outcome.completionTokens);
          } catch (error) {
            report(error);
          }
          try {
            await store.recordUsage({
              requestId,
              keyId,
              organisation: principal.organisationId,
              model: demand.model,
              promptTokens: outcome.promptTokens,
              completionTokens: outcome.completionTokens,
              status: outcome.status,
              interrupted: outcome.interrupted,
              timestamp: Date.now(),
            });
          } catch (error) {
            report(error);
          }
        },
      };
    },
  };
}
