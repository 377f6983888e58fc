import { createHash } from 'node:crypto';
import { QuantumChatError } from '@quantum-chat/core';
import type { DeploymentLease, DeploymentVerdict } from './deployment-pool.js';

/** Overload (429, 503) and an unreachable server say nothing of what the request asked. */
export function isReplicaWide(failure: unknown, status: number | undefined): boolean {
  if (status === 429 || status === 503) return true;
  return status === undefined && QuantumChatError.isInstance(failure) && failure.code === 'engine_unavailable';
}

/** A digest of what a request asks (the upstream body without the deployment's model name). */
export function requestFingerprint(upstreamBody: string): string {
  return createHash('sha256').update(upstreamBody).digest('base64url');
}

interface HeldFailure {
  verdict: DeploymentVerdict;
  retryAfterMs: number | undefined;
  weight: number;
}

/**
 * The deployment failures of one request, judged when the request ends (decisions §8): a
 * failure that may be the request's own (a 5xx, a timeout, a broken or over-large answer) is
 * the deployment's if another deployment answered the request; it is nobody's if it happened
 * on two or more deployments (the failure followed the request); a lone one counts, but once
 * per request content (`fingerprint`). Overload and an unreachable server count at once.
 *
 * @example
 * const verdicts = new FailureVerdicts();
 * verdicts.failed(lease, failure, 500, undefined, 1);
 * verdicts.settle(false, () => requestFingerprint(body));
 */
export class FailureVerdicts {
  private readonly held: HeldFailure[] = [];

  failed(lease: DeploymentLease<unknown>, failure: unknown, status: number | undefined, retryAfterMs: number | undefined, weight: number): void {
    if (isReplicaWide(failure, status)) lease.failed(retryAfterMs);
    else this.held.push({ verdict: lease.withheld(), retryAfterMs, weight });
  }

  /** The request ended: `answered` when a deployment finished its answer. */
  settle(answered: boolean, fingerprint: () => string): void {
    const held = this.held;
    if (held.length === 0) return;
    if (answered) {
      for (const each of held) each.verdict.failed(each.retryAfterMs, { weight: each.weight });
    } else if (held.length > 1) {
      for (const each of held) each.verdict.released();
    } else {
      held[0]!.verdict.failed(held[0]!.retryAfterMs, { weight: held[0]!.weight, fingerprint: fingerprint() });
    }
    held.length = 0;
  }
}
