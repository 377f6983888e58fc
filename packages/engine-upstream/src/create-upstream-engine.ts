import { QuantumChatError, type ChatEngine, type ChatEngineContext, type ChatEngineEvent, type ChatEngineRequest } from '@quantum-chat/core';
import { readErrorPayload, type WireUsage } from '@quantum-chat/core/dialect';
import { Agent } from 'undici';
import { countApproximatePromptTokens, countApproximateTokens } from './approximate-tokens.js';
import { createDeadline } from './create-deadline.js';
import { createDeploymentPool, type DeploymentPool } from './deployment-pool.js';
import { FailureVerdicts, requestFingerprint } from './failure-verdicts.js';
import { readCappedText } from './read-capped-body.js';
import { readUpstreamEvents } from './read-upstream-events.js';
import { relayBudgetCharacters } from './relay-budget.js';
import { retryDelayMs, sleep } from './retry-delay.js';
import { createUpstreamChunkMapper, type UpstreamChunkMapper } from './upstream-chunk-mapper.js';
import {
  defaultConnectTimeoutMs,
  defaultFirstTokenTimeoutMs,
  defaultIdleTimeoutMs,
  type UpstreamDeployment,
  type UpstreamEngineOptions,
  type UpstreamRequestEnd,
  type UpstreamRequestStart,
  type UpstreamRequestWatcher,
  type UsageReplacement,
} from './upstream-engine-options.js';
import { failureFromNetwork, failureFromStatus } from './upstream-failure.js';
import { resolveUpstreamLimits } from './upstream-limits.js';
import { toUpstreamRequestBody } from './upstream-request-body.js';
import { UsualPromptSize } from './usual-prompt-size.js';
import { fetchTransport, undiciTransport, type SendUpstream } from './upstream-transport.js';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A deployment with its own endpoint and transport. */
interface Target extends UpstreamDeployment {
  url: string;
  send: SendUpstream;
}

const nothingTried: ReadonlySet<Target> = new Set();

/** The deployments of the options: `deployments`, or the one of `baseUrl`, `model` and `apiKey`. */
function readDeployments(options: UpstreamEngineOptions): readonly UpstreamDeployment[] {
  if (options.deployments !== undefined) {
    if (options.deployments.length === 0) throw new TypeError('createUpstreamEngine: `deployments` is empty.');
    if (options.baseUrl !== undefined || options.model !== undefined) throw new TypeError('createUpstreamEngine: give `deployments` or `baseUrl` and `model`, not both.');
    return options.deployments;
  }
  if (options.baseUrl === undefined || options.model === undefined) throw new TypeError('createUpstreamEngine needs `baseUrl` and `model` (or `deployments`).');
  return [{ baseUrl: options.baseUrl, model: options.model, ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}) }];
}

/** The client's 4xx faults say nothing of a deployment's health; everything else before our client's answer does. */
function isDeploymentFault(failure: unknown, status: number | undefined): boolean {
  if (!QuantumChatError.isInstance(failure)) return false;
  if (status === undefined || (status >= 200 && status < 300)) return failure.status >= 500;
  return status >= 500 || status === 429 || status === 408;
}

/** Retried only while nothing reached our caller, on a deployment not tried yet, for a deployment's fault. */
function isRetried(failure: unknown, status: number | undefined, yielded: boolean, attemptsLeft: boolean, client: AbortSignal): boolean {
  return failure !== undefined && !yielded && attemptsLeft && !client.aborted && isDeploymentFault(failure, status);
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
    const url = `${deployment.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const send =
      options.fetch !== undefined ? fetchTransport(url, options.fetch as Parameters<typeof fetchTransport>[1], dispatcher) : undiciTransport(url, dispatcher!);
    return { ...deployment, url, send };
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

  async function* generate(request: ChatEngineRequest, context: ChatEngineContext): AsyncGenerator<ChatEngineEvent> {
    context.signal.throwIfAborted();
    let tried = nothingTried;
    let lastFailure: unknown;
    /** The request's deployment failures, judged once it ends (made at the first one). */
    let verdicts: FailureVerdicts | undefined;
    /** A deployment finished the answer. */
    let answered = false;
    let promptTokens: number | undefined;
    const countPrompt = () => (promptTokens ??= countApproximatePromptTokens(request));
    const settleFailures = () => verdicts?.settle(answered, () => requestFingerprint(JSON.stringify(toUpstreamRequestBody(request, '', passThrough))));
    for (let attempt = 1; ; attempt++) {
      const lease = pool.acquire(tried);
      if (lease === undefined) {
        settleFailures();
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the last attempt's failure as it came, which may be the caller's abort reason
        throw lastFailure ?? noDeploymentAvailable(pool, Date.now());
      }
      const target = lease.deployment;
      if (attempt < maxAttempts) tried = tried === nothingTried ? new Set([target]) : (tried as Set<Target>).add(target);
      const upstream = new AbortController();
      const forwardAbort = () => upstream.abort(context.signal.reason);
      context.signal.addEventListener('abort', forwardAbort, { once: true });
      const deadline = createDeadline(upstream);
      const firstTokenTimeout = () => new QuantumChatError('upstream_timeout', `The model server sent no first token within ${firstTokenTimeoutMs} ms.`);
      const idleTimeout = () => new QuantumChatError('upstream_timeout', `The model server stalled: nothing for ${idleTimeoutMs} ms during the answer.`);
      const mapper = createUpstreamChunkMapper({
        showReasoning: reasoningMode === 'keep' || (reasoningMode === 'auto' && request.reasoning),
        countTokens: countApproximateTokens,
        countPromptTokens: countPrompt,
        maxTokens: request.maxTokens,
        relayBudget: relayBudgetCharacters(request.maxTokens),
        maxToolArgumentsLength: limits.maxToolArgumentsLength,
        onUsageReplaced: (reasons, reported, used) => reportUsageReplaced({ requestId: context.requestId, model: target.model, reported: reportedCounts(reported), used, reasons }),
      });
      let responded = false;
      /** `[DONE]` arrived: the answer is complete. */
      let done = false;
      /** An event went to our caller: from then on a failure is final. */
      let yielded = false;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...options.headers,
        ...target.headers,
        'x-request-id': context.requestId,
      };
      const watch = watchUpstreamRequest(options, { url: target.url, model: target.model, requestId: context.requestId, headers });
      let status: number | undefined;
      let failure: unknown;
      let finish: Extract<ChatEngineEvent, { type: 'finish' }> | undefined;
      deadline.arm(firstTokenTimeoutMs, firstTokenTimeout);
      try {
        const response = await target.send({
          headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}`, ...headers } : headers,
          body: JSON.stringify(toUpstreamRequestBody(request, target.model, passThrough)),
          signal: upstream.signal,
        });
        responded = true;
        status = response.status;
        if (!response.ok) {
          const errorBody = await readCappedText(response.body(), limits.maxErrorBodyBytes, { truncate: true });
          throw failureFromStatus(response.status, response.headers, readErrorPayload(parseJson(errorBody))?.message);
        }
        const contentType = response.headers.get('content-type') ?? '';
        if (contentType.includes('json')) {
          // A runtime that ignored `stream: true` answered with one whole completion.
          for (const event of handleWhole(await readCappedText(response.body(), limits.maxResponseBytes), mapper)) {
            if (event.type === 'finish') finish = event;
            yielded = true;
            yield event;
          }
          return;
        }
        const body = contentType === '' || contentType.includes('event-stream') ? response.body() : null;
        if (body === null) {
          throw new QuantumChatError('upstream_error', `The model server answered with '${contentType.slice(0, 100)}', not an event stream.`);
        }
        const events = readUpstreamEvents(body, {
          // Before the first token only the first-token timer runs; after it, the idle timer.
          waitStarted: () => {
            if (mapper.started()) deadline.arm(idleTimeoutMs, idleTimeout);
          },
          eventsArrived: () => {
            if (mapper.started()) deadline.clear();
          },
          drainOnExit: () => done,
        }, limits);
        batches: for await (const batch of events) {
          for (const event of batch) {
            const wasStarted = mapper.started();
            const mapped = mapper.read(event);
            if (mapper.done()) {
              // The answer is complete: a client leaving now must not destroy a reusable connection.
              done = true;
              context.signal.removeEventListener('abort', forwardAbort);
              break batches;
            }
            if (!wasStarted && mapper.started()) deadline.clear();
            // Not `yield*`: over an array, that adds an asynchronous step per event.
            for (const mappedEvent of mapped) {
              yielded = true;
              yield mappedEvent;
            }
            // Past max_tokens by our count (with a margin): the rest is not read, the answer ends with `length`.
            if (mapper.cut()) break batches;
          }
        }
        if (!done && !mapper.cut() && !mapper.finished()) throw new QuantumChatError('upstream_error', 'The model server ended the stream without finishing the answer.');
        for (const event of mapper.end()) {
          if (event.type === 'finish') finish = event;
          yielded = true;
          yield event;
        }
      } catch (error) {
        failure = toFailure(error, upstream.signal, context.signal, responded);
      } finally {
        watch?.({ status, error: failure, usage: finish?.usage, finishReason: finish?.reason });
        deadline.clear();
        context.signal.removeEventListener('abort', forwardAbort);
        // Closes the socket at once if the upstream is still sending (no-op after a complete body);
        // after `[DONE]` the body is drained instead, so the connection can be reused.
        if (!done) upstream.abort(new Error('The upstream request ended.'));
        // Also reached when our caller stops reading: a finished answer is a success, a left one says nothing.
        if (failure === undefined) {
          if (finish !== undefined) {
            answered = true;
            usualPrompt.observe(countPrompt());
            lease.succeeded();
          } else lease.released();
        } else if (!context.signal.aborted && isDeploymentFault(failure, status)) {
          // A timeout on a prompt far above the usual size may be the prompt's: it counts less.
          const weight = QuantumChatError.isInstance(failure) && failure.code === 'upstream_timeout' ? usualPrompt.timeoutWeight(countPrompt()) : 1;
          (verdicts ??= new FailureVerdicts()).failed(lease, failure, status, retryAfterOf(failure), weight);
        } else lease.released();
        // The request ends here unless this failure is retried: its deployments' failures are judged now.
        if (!isRetried(failure, status, yielded, attempt < maxAttempts, context.signal)) settleFailures();
      }
      if (failure === undefined) return;
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the failure as it came, which may be the caller's abort reason
      if (!isRetried(failure, status, yielded, attempt < maxAttempts, context.signal)) throw failure;
      lastFailure = failure;
      try {
        await sleep(retryDelayMs(attempt + 1, retry, Math.random), context.signal);
      } catch (error) {
        settleFailures();
        throw error;
      }
    }
  }

  return {
    passThrough,
    generate,
    // Counting about four characters a token costs no more than any bound: the bound is the count.
    measurePrompt: (request: ChatEngineRequest) => ({ bound: countApproximatePromptTokens(request) }),
    countTokens: countApproximateTokens,
  };
}

/** The counts of a reported usage, and nothing else of it (a log line must never carry text). */
function reportedCounts(reported: WireUsage | undefined): UsageReplacement['reported'] {
  if (reported === undefined) return undefined;
  return { promptTokens: reported.prompt_tokens, completionTokens: reported.completion_tokens, reasoningTokens: reported.completion_tokens_details?.reasoning_tokens };
}

/** Without `onUsageReplaced`: one warning line. */
function warnUsageReplaced(report: UsageReplacement): void {
  console.warn(`quantum-chat upstream: usage of request ${report.requestId} (${report.model}) replaced by our own count: ${report.reasons.join('; ')}.`);
}

/** The watcher of one upstream request, or undefined; a failing hook never fails the request. */
function watchUpstreamRequest(options: UpstreamEngineOptions, start: UpstreamRequestStart): ((outcome: UpstreamRequestEnd) => void) | undefined {
  if (options.onUpstreamRequest === undefined) return undefined;
  let watcher: UpstreamRequestWatcher | undefined | void;
  try {
    watcher = options.onUpstreamRequest(start);
  } catch {
    return undefined;
  }
  if (watcher === undefined) return undefined;
  return (outcome) => {
    try {
      watcher.end(outcome);
    } catch {
      // Reporting only.
    }
  };
}

function* handleWhole(text: string, mapper: UpstreamChunkMapper): Generator<ChatEngineEvent> {
  const payload = parseJson(text);
  if (payload === undefined) throw new QuantumChatError('upstream_error', 'The model server answered with JSON that is not a chat completion.');
  yield* mapper.readWhole(payload);
  yield* mapper.end();
}

/** What a failure means for our client: a timeout we set, the client leaving, or an upstream fault. */
function toFailure(error: unknown, upstream: AbortSignal, client: AbortSignal, responded: boolean): unknown {
  if (QuantumChatError.isInstance(error)) return error;
  if (client.aborted) return client.reason;
  if (upstream.aborted && QuantumChatError.isInstance(upstream.reason)) return upstream.reason;
  return failureFromNetwork(error, responded);
}
