import { eventsInBatches, isRunAborted, QuantumChatError, type ChatEngine, type ChatEngineContext, type ChatEngineEvent, type ChatEngineRequest } from '@quantum-chat/core';
import { Agent } from 'undici';
import { countApproximatePromptTokens, countApproximateTokens } from './approximate-tokens.js';
import { createDeploymentPool, type DeploymentLease, type DeploymentPool } from './deployment-pool.js';
import { FailureVerdicts } from './failure-verdicts.js';
import { RelayedBatch } from './relayed-batch.js';
import { RequestRun } from './request-run.js';
import { retryDelayMs, sleep } from './retry-delay.js';
import { UpstreamAttempt, type AttemptSettings, type Target } from './upstream-attempt.js';
import {
  defaultConnectTimeoutMs,
  defaultFirstTokenTimeoutMs,
  defaultIdleTimeoutMs,
  defaultAnswerTimeoutMs,
  type UpstreamDeployment,
  type UpstreamEngineOptions,
  type UsageReplacement,
} from './upstream-engine-options.js';
import { resolveUpstreamLimits } from './upstream-limits.js';
import { UsualPromptSize } from './usual-prompt-size.js';
import { fetchTransport, undiciTransport } from './upstream-transport.js';

/** The deployments of the options: `deployments`, or the one of `baseUrl`, `model` and `apiKey`. */
function readDeployments(options: UpstreamEngineOptions): readonly UpstreamDeployment[] {
  if (options.deployments !== undefined) {
    if (options.deployments.length === 0) throw new TypeError('createUpstreamEngine: `deployments` is empty.');
    if (options.baseUrl !== undefined || options.model !== undefined || options.api !== undefined) throw new TypeError('createUpstreamEngine: give `deployments` or `baseUrl`, `model` and `api`, not both.');
    return options.deployments;
  }
  if (options.baseUrl === undefined || options.model === undefined) throw new TypeError('createUpstreamEngine needs `baseUrl` and `model` (or `deployments`).');
  return [
    {
      baseUrl: options.baseUrl,
      model: options.model,
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.api !== undefined ? { api: options.api } : {}),
    },
  ];
}

/** The client's 4xx faults say nothing of a deployment's health; everything else before our client's answer does. */
function isDeploymentFault(failure: unknown, status: number | undefined): boolean {
  if (!QuantumChatError.isInstance(failure)) return false;
  if (status === undefined || (status >= 200 && status < 300)) return failure.status >= 500;
  return status >= 500 || status === 429 || status === 408;
}

/** Retried only while nothing reached our caller, on a deployment not tried yet, for a deployment's fault. */
function isRetried(failure: unknown, status: number | undefined, yielded: boolean, attemptsLeft: boolean, context: ChatEngineContext): boolean {
  return failure !== undefined && !yielded && attemptsLeft && !isRunAborted(context) && isDeploymentFault(failure, status);
}

/** How long the deployment asked us to stay away (`retry-after` of a 429 or 503), if it did. */
function retryAfterOf(failure: unknown): number | undefined {
  if (!QuantumChatError.isInstance(failure)) return undefined;
  const milliseconds = Number(failure.headers['retry-after-ms']);
  return Number.isFinite(milliseconds) && milliseconds > 0 ? milliseconds : undefined;
}

function noDeploymentAvailable(pool: DeploymentPool<Target>, now: number): QuantumChatError {
  const reopens = pool.nextReopening();
  const waitMs = reopens === undefined ? 1000 : Math.max(1000, reopens - now);
  return new QuantumChatError('engine_unavailable', 'Every server of this model is busy or failing; retry shortly.', {
    headers: { 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(Math.round(waitMs)) },
  });
}

/**
 * A {@link ChatEngine} that serves a model from any OpenAI-compatible server: Ollama, vLLM,
 * llama.cpp, LM Studio, OpenAI, DeepSeek, or several replicas of one (`deployments`). It always
 * streams upstream, so first-token and idle timeouts and client aborts behave the same for
 * streaming and non-streaming clients, and a failure is never turned into a fake success.
 *
 * @example
 * const registry = createModelRegistry({
 *   engine: createReferenceEngine(),
 *   engines: { 'quantum-flash': createUpstreamEngine({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' }) },
 * });
 */
export function createUpstreamEngine(options: UpstreamEngineOptions): ChatEngine {
  const firstTokenTimeoutMs = options.firstTokenTimeoutMs ?? defaultFirstTokenTimeoutMs;
  const idleTimeoutMs = options.idleTimeoutMs ?? defaultIdleTimeoutMs;
  const answerTimeoutMs = options.answerTimeoutMs ?? defaultAnswerTimeoutMs;
  const reasoningMode = options.reasoning ?? 'auto';
  const passThrough = options.passThrough ?? 'none';
  const retry = options.retry ?? {};
  const limits = resolveUpstreamLimits(options.limits);
  // undici's own header and body timeouts are off: ours know first token from idle, and say so.
  // One dispatcher for the engine's life: its pools (one per origin) keep connections alive between requests.
  let dispatcher = options.dispatcher;
  if (dispatcher === undefined && options.fetch === undefined) {
    dispatcher = new Agent({ connect: { timeout: options.connectTimeoutMs ?? defaultConnectTimeoutMs }, headersTimeout: 0, bodyTimeout: 0 });
  }
  const targets: Target[] = readDeployments(options).map((deployment) => {
    const api = deployment.api ?? 'chat';
    if (api !== 'chat' && api !== 'responses') throw new TypeError(`createUpstreamEngine: \`api\` must be 'chat' or 'responses', not ${JSON.stringify(api)}.`);
    const url = `${deployment.baseUrl.replace(/\/+$/, '')}/${api === 'responses' ? 'responses' : 'chat/completions'}`;
    const send =
      options.fetch !== undefined ? fetchTransport(url, options.fetch as Parameters<typeof fetchTransport>[1], dispatcher) : undiciTransport(url, dispatcher!);
    return { ...deployment, api, url, send };
  });
  const pool = createDeploymentPool(targets, options.circuitBreaker !== undefined ? { breaker: options.circuitBreaker } : {});
  const maxAttempts = Math.max(1, Math.min(retry.maxAttempts ?? 3, targets.length));
  const usualPrompt = new UsualPromptSize();
  const reportUsageReplaced = (report: UsageReplacement) => {
    try {
      (options.onUsageReplaced ?? warnUsageReplaced)(report);
    } catch {
      // Reporting only.
    }
  };

  const settings: AttemptSettings = { options, firstTokenTimeoutMs, idleTimeoutMs, answerTimeoutMs, reasoningMode, passThrough, limits, reportUsageReplaced };

  /** The next attempt of a request, on a deployment it has not tried; none left: the last failure, or `engine_unavailable`. */
  function nextAttempt(run: RequestRun, attempt: number): { lease: DeploymentLease<Target>; current: UpstreamAttempt } {
    const lease = pool.acquire(run.tried);
    if (lease === undefined) {
      run.settleFailures();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the last attempt's failure as it came, which may be the caller's abort reason
      throw run.lastFailure ?? noDeploymentAvailable(pool, Date.now());
    }
    if (attempt < maxAttempts) run.markTried(lease.deployment);
    return { lease, current: new UpstreamAttempt(settings, lease.deployment, run.request, run.context, run.countPrompt) };
  }

  /**
   * Hands the deployment back with what the attempt says of it. Also reached when our caller
   * stops reading: a finished answer is a success, a left one says nothing.
   */
  function judgeAttempt(run: RequestRun, lease: DeploymentLease<Target>, current: UpstreamAttempt, attempt: number): void {
    const { failure, status } = current;
    if (failure === undefined) {
      if (current.answered()) {
        run.answered = true;
        usualPrompt.observe(run.countPrompt());
        lease.succeeded();
      } else lease.released();
    } else if (!isRunAborted(run.context) && isDeploymentFault(failure, status)) {
      // A timeout on a prompt far above the usual size may be the prompt's: it counts less.
      const weight = QuantumChatError.isInstance(failure) && failure.code === 'upstream_timeout' ? usualPrompt.timeoutWeight(run.countPrompt()) : 1;
      (run.verdicts ??= new FailureVerdicts()).failed(lease, failure, status, retryAfterOf(failure), weight);
    } else lease.released();
    // The request ends here unless this failure is retried: its deployments' failures are judged now.
    if (!isRetriedAttempt(run, current, attempt)) run.settleFailures();
  }

  const isRetriedAttempt = (run: RequestRun, current: UpstreamAttempt, attempt: number) =>
    isRetried(current.failure, current.status, current.yielded, attempt < maxAttempts, run.context);

  /** Waits the retry delay before the next attempt; a client leaving meanwhile ends the request. */
  async function waitBeforeRetry(run: RequestRun, attempt: number): Promise<void> {
    try {
      await sleep(retryDelayMs(attempt + 1, retry, Math.random), run.context.signal);
    } catch (error) {
      run.settleFailures();
      throw error;
    }
  }

  /**
   * One request: attempts on deployments not tried yet, retried while nothing reached our caller
   * and the failure is a deployment's. The events go out in batches, one per upstream read (see
   * `eventsInBatches`): the core takes a read's events after one asynchronous step.
   */
  async function* generateBatches(request: ChatEngineRequest, context: ChatEngineContext): AsyncGenerator<readonly ChatEngineEvent[]> {
    if (isRunAborted(context)) context.signal.throwIfAborted();
    const run = new RequestRun(request, context, passThrough);
    for (let attempt = 1; ; attempt++) {
      const { lease, current } = nextAttempt(run, attempt);
      try {
        const answer = await current.send();
        if (answer.whole !== undefined) {
          const whole = new RelayedBatch(current).add(answer.whole);
          if (whole.events.length > 0) yield whole.events;
          whole.rethrow();
          return;
        }
        for await (const read of answer.stream) {
          const batch = new RelayedBatch(current).read(read);
          if (batch.events.length > 0) yield batch.events;
          batch.rethrow();
          if (batch.stopped) break;
        }
        const end = new RelayedBatch(current).add(current.end());
        if (end.events.length > 0) yield end.events;
        end.rethrow();
      } catch (error) {
        current.fail(error);
      } finally {
        current.close();
        judgeAttempt(run, lease, current, attempt);
      }
      if (current.failure === undefined) return;
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the failure as it came, which may be the caller's abort reason
      if (!isRetriedAttempt(run, current, attempt)) throw current.failure;
      run.lastFailure = current.failure;
      await waitBeforeRetry(run, attempt);
    }
  }

  const generate = (request: ChatEngineRequest, context: ChatEngineContext): AsyncIterableIterator<ChatEngineEvent> => eventsInBatches(generateBatches(request, context));

  return {
    passThrough,
    generate,
    // Counting about four characters a token costs no more than any bound: the bound is the count.
    measurePrompt: (request: ChatEngineRequest) => ({ bound: countApproximatePromptTokens(request) }),
    /** @deprecated `measurePrompt(request).bound`, or the exported `countApproximatePromptTokens`; kept until the next major release. */
    countPromptTokens: countApproximatePromptTokens,
    countTokens: countApproximateTokens,
  };
}

/** Without `onUsageReplaced`: one warning line. */
function warnUsageReplaced(report: UsageReplacement): void {
  console.warn(`quantum-chat upstream: usage of request ${report.requestId} (${report.model}) replaced by our own count: ${report.reasons.join('; ')}.`);
}
