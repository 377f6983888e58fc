import type { ClientConfig, RequestOptions } from '../client-options.js';
import { QuantumChatApiError } from '../errors/api-error.js';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../errors/connection-errors.js';
import { createApiError } from '../errors/create-api-error.js';
import { createAttemptController, type AttemptController } from './attempt-controller.js';
import { retryDelayMs, shouldRetryResponse } from './retry-policy.js';

/** What to send. @internal */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below the base URL, starting with `/`. */
  path: string;
  body?: unknown;
  accept: 'application/json' | 'text/event-stream';
  options: RequestOptions | undefined;
}

/** A successful (2xx) response and the attempt that got it. @internal */
export interface ApiResponse {
  response: Response;
  headers: Record<string, string>;
  /** Still live: aborting it cancels the body; dispose it once the body is read. */
  attempt: AttemptController;
}

/**
 * Sends a request, retrying failures that happen before the response is accepted: 408, 409,
 * 429 and 5xx (unless `x-should-retry: false`), connection errors and timeouts. A 2xx response
 * is returned as soon as its headers arrive, so nothing after that point (a stream's body) is
 * ever retried. Errors are the client's classes; the caller's abort is never retried.
 *
 * @internal
 */
export async function sendRequest(config: ClientConfig, request: ApiRequest): Promise<ApiResponse> {
  const options = request.options ?? {};
  const maxRetries = Math.max(0, options.maxRetries ?? config.maxRetries);
  const url = config.baseUrl + request.path;
  const init = {
    method: request.method,
    headers: buildHeaders(config, request),
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  };
  for (let retriesSoFar = 0; ; retriesSoFar++) {
    if (options.signal?.aborted) throw new APIUserAbortError(undefined, { cause: options.signal.reason });
    const attempt = createAttemptController(options.signal, options.timeout ?? config.timeout);
    let failure: QuantumChatApiError;
    let retryHeaders: Record<string, string> = {};
    try {
      const response = await config.fetch(url, { ...init, signal: attempt.signal });
      const headers = headersToRecord(response.headers);
      if (response.ok) return { response, headers, attempt };
      const text = await response.text();
      attempt.dispose();
      failure = createApiError(response.status, parseJsonOrUndefined(text), headers, text);
      if (!shouldRetryResponse(response.status, headers)) throw failure;
      retryHeaders = headers;
    } catch (error) {
      attempt.dispose();
      if (QuantumChatApiError.isInstance(error)) throw error;
      failure = toTransportError(error, attempt, { method: request.method, url });
      if (APIUserAbortError.isInstance(failure)) throw failure;
    }
    if (retriesSoFar >= maxRetries) throw failure;
    await config.sleep(retryDelayMs(retriesSoFar, retryHeaders), options.signal);
  }
}

/** A URL fit for a message: user and password left out. */
function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * Why `fetch` failed, in the system's words: undici only says `fetch failed` and keeps the
 * reason (`connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo ENOTFOUND …`) in its `cause`.
 */
function describeFailure(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause = error.cause as { message?: unknown; code?: unknown } | undefined;
  const detail = typeof cause?.message === 'string' && cause.message !== '' ? cause.message : typeof cause?.code === 'string' ? cause.code : undefined;
  if (error.message === 'fetch failed' && detail !== undefined) return detail;
  return detail !== undefined && !error.message.includes(detail) ? `${error.message}: ${detail}` : error.message;
}

/**
 * Maps what `fetch` (or reading a body) threw to the client's connection, timeout or abort
 * error. `target`, when given, is named in the message: what could not be reached.
 * @internal
 */
export function toTransportError(error: unknown, attempt: AttemptController, target?: { method: string; url: string }): QuantumChatApiError {
  const cause = attempt.abortedBy();
  if (cause === 'caller') return new APIUserAbortError(undefined, { cause: error });
  if (cause === 'timeout') return new APIConnectionTimeoutError(undefined, { cause: error });
  const reason = describeFailure(error);
  if (target === undefined) return new APIConnectionError(`Connection error${reason === undefined ? '' : `: ${reason}`}.`, { cause: error });
  return new APIConnectionError(`Connection error: could not reach ${target.method} ${displayUrl(target.url)}${reason === undefined ? '' : ` (${reason})`}.`, { cause: error });
}

function buildHeaders(config: ClientConfig, request: ApiRequest): Record<string, string> {
  const headers: Record<string, string> = { accept: request.accept };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (config.apiKey !== undefined && config.apiKey !== '') headers.authorization = `Bearer ${config.apiKey}`;
  if (request.accept === 'text/event-stream' && config.streamFormat === 'openai') headers['x-stream-format'] = 'openai';
  return { ...headers, ...lowerCaseKeys(config.defaultHeaders), ...lowerCaseKeys(request.options?.headers ?? {}) };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** `Headers` iterate with lower-case names. @internal */
function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
