import { QuantumChatError } from '@quantum-chat/core';

/** Response headers as fetch gives them. */
interface HeaderReader {
  get(name: string): string | null;
}

const maxMessageLength = 500;

function clip(message: string): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > maxMessageLength ? `${flat.slice(0, maxMessageLength)}…` : flat;
}

/**
 * `retry-after` (integer seconds, at least 1) and `retry-after-ms` from the upstream's
 * `retry-after-ms`, `retry-after` (seconds or an HTTP date), or the fallback when it sent none.
 */
export function retryAfterHeaders(headers: HeaderReader, fallbackSeconds?: number, now = Date.now()): Record<string, string> {
  let milliseconds: number | undefined;
  const exact = Number(headers.get('retry-after-ms') ?? Number.NaN);
  const value = headers.get('retry-after');
  if (Number.isFinite(exact) && exact >= 0) milliseconds = exact;
  else if (value !== null && /^\s*\d+(\.\d+)?\s*$/.test(value)) milliseconds = Number(value) * 1000;
  else if (value !== null && Number.isFinite(Date.parse(value))) milliseconds = Math.max(0, Date.parse(value) - now);
  else if (fallbackSeconds !== undefined) milliseconds = fallbackSeconds * 1000;
  if (milliseconds === undefined) return {};
  const seconds = Math.max(1, Math.ceil(milliseconds / 1000));
  return { 'retry-after': String(seconds), 'retry-after-ms': String(Math.max(Math.round(milliseconds), 1)) };
}

/**
 * The error our client gets for an upstream HTTP status (the table is in the README). The
 * client's request is blamed only where the upstream blamed its content (400, 413, 422);
 * credentials, paths and model names are our configuration, so those are 502s.
 */
export function failureFromStatus(status: number, headers: HeaderReader, upstreamMessage: string | undefined): QuantumChatError {
  const detail = upstreamMessage === undefined || upstreamMessage.trim() === '' ? '' : `: ${clip(upstreamMessage)}`;
  const options = { headers: retryAfterHeaders(headers) };
  switch (status) {
    case 400:
    case 422:
      return new QuantumChatError('invalid_value', `The model server rejected the request${detail}`);
    case 413:
      return new QuantumChatError('request_too_large', `The request is too large for the model server${detail}`);
    case 401:
    case 403:
      // The upstream's words about our key are not the client's business.
      return new QuantumChatError('upstream_error', `The model server refused the service's credentials (HTTP ${status}).`);
    case 404:
      return new QuantumChatError('upstream_error', `The model server does not serve the configured model or path (HTTP 404)${detail}`);
    case 408:
    case 504:
      return new QuantumChatError('upstream_timeout', `The model server timed out (HTTP ${status})${detail}`, options);
    case 429:
    case 503:
      return new QuantumChatError('engine_unavailable', `The model server is overloaded; retry shortly (HTTP ${status})${detail}`, {
        headers: retryAfterHeaders(headers, 1),
      });
    default:
      return new QuantumChatError('upstream_error', `The model server failed (HTTP ${status})${detail}`, options);
  }
}

/** The first error code in an error's `cause` chain (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, ...). */
export function networkErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The error for a transport failure: before the response began, the model server is unavailable
 * (503); once it was answering, the answer broke (502).
 */
export function failureFromNetwork(error: unknown, responded: boolean): QuantumChatError {
  const code = networkErrorCode(error);
  const suffix = code === undefined ? '' : ` (${code})`;
  return responded
    ? new QuantumChatError('upstream_error', `The connection to the model server broke during the answer${suffix}.`, { cause: error })
    : new QuantumChatError('engine_unavailable', `The model server is unreachable${suffix}.`, { cause: error });
}
