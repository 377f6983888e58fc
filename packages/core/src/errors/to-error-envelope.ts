import type { ChatHttpBodyResponse } from '../contract/chat-http-types.js';
import type { ErrorEnvelope } from '../schemas/error-envelope.js';
import { QuantumChatError } from './quantum-chat-error.js';

/** The `retry-after` of a 503 that did not set one: seconds. */
const defaultRetryAfterSeconds = '1';

/** What a failure becomes on the wire: status, extra headers and the envelope. */
export interface ErrorResponseParts {
  status: number;
  headers: Record<string, string>;
  envelope: ErrorEnvelope;
  /** The error as a QuantumChatError (unknown errors become a masked `internal_error`). */
  error: QuantumChatError;
}

/**
 * Turns anything thrown into the error envelope. Unknown errors are masked as a 500
 * `internal_error`: their message and stack never reach a client.
 */
export function toErrorResponseParts(thrown: unknown): ErrorResponseParts {
  const error = QuantumChatError.isInstance(thrown)
    ? thrown
    : new QuantumChatError('internal_error', 'The server had an error while processing your request.', { cause: thrown });
  return {
    status: error.status,
    // Every 503 says when to come back (decisions §5), whoever raised it without saying.
    headers: error.status === 503 && error.headers['retry-after'] === undefined ? { ...error.headers, 'retry-after': defaultRetryAfterSeconds } : error.headers,
    envelope: { error: { message: error.message, type: error.type, param: error.param, code: error.code } },
    error,
  };
}

/** The envelope alone, for an SSE `error` frame or a client-side rebuild. */
export function toErrorEnvelope(thrown: unknown): ErrorEnvelope {
  return toErrorResponseParts(thrown).envelope;
}

/** A finished JSON error response for anything thrown: what hosts write when the core cannot. */
export function toErrorHttpResponse(thrown: unknown): ChatHttpBodyResponse {
  const parts = toErrorResponseParts(thrown);
  return { status: parts.status, headers: { 'content-type': 'application/json; charset=utf-8', ...parts.headers }, body: JSON.stringify(parts.envelope) };
}
