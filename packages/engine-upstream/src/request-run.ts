import type { ChatEngineContext, ChatEngineRequest, PassThroughPolicy } from '@quantum-chat/core';
import { countApproximatePromptTokens } from './approximate-tokens.js';
import { FailureVerdicts, requestFingerprint } from './failure-verdicts.js';
import type { Target } from './upstream-attempt.js';
import { toUpstreamRequestBody } from './upstream-request-body.js';

const nothingTried: ReadonlySet<Target> = new Set();

/**
 * What the attempts of one request share: the deployments tried, the last failure, the
 * deployments' failures (judged once the request ends), and its prompt's count, made once.
 */
export class RequestRun {
  readonly request: ChatEngineRequest;
  readonly context: ChatEngineContext;
  /** Not offered again to this request (the last attempt may go anywhere). */
  tried: ReadonlySet<Target> = nothingTried;
  lastFailure: unknown;
  /** The request's deployment failures, judged once it ends (made at the first one). */
  verdicts: FailureVerdicts | undefined;
  /** A deployment finished the answer. */
  answered = false;
  readonly #passThrough: PassThroughPolicy;
  #promptTokens: number | undefined;

  constructor(request: ChatEngineRequest, context: ChatEngineContext, passThrough: PassThroughPolicy) {
    this.request = request;
    this.context = context;
    this.#passThrough = passThrough;
  }

  /** The prompt's tokens by our count, counted on first need. */
  readonly countPrompt = (): number => (this.#promptTokens ??= countApproximatePromptTokens(this.request));

  markTried(target: Target): void {
    this.tried = this.tried === nothingTried ? new Set([target]) : (this.tried as Set<Target>).add(target);
  }

  /** Judges the deployments' failures now that the request ends. */
  settleFailures(): void {
    this.verdicts?.settle(this.answered, () => requestFingerprint(JSON.stringify(toUpstreamRequestBody(this.request, '', this.#passThrough))));
  }
}
