import { readErrorPayload, type WireError } from '@quantum-chat/core/dialect';
import { QuantumChatApiError, type ApiErrorInit } from './api-error.js';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './status-errors.js';

type StatusErrorClass = new (message: string, init: ApiErrorInit) => QuantumChatApiError;

/** openai-node's status → class table. Statuses not listed (405, 413, 415, ...) get the base class. */
const classByStatus: Readonly<Record<number, StatusErrorClass>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** Only this much of a non-JSON body goes into a message (an HTML error page can be large). */
const maxBodyExcerpt = 500;

/**
 * Builds the error for an error payload: with a `status` from an HTTP response (the subclass
 * for that status), or without one for an error frame inside a stream (the base class). The
 * payload is read by the core's `readErrorPayload`, so every shape other servers send works
 * (`type`, `param` or `code` left out, a number as `code`, `{"error":"…"}`, vLLM's
 * `{"object":"error",…}`); a body that is not an error payload still gives a useful message.
 *
 * @internal
 */
export function createApiError(status: number | undefined, body: unknown, headers: Record<string, string>, rawText?: string): QuantumChatApiError {
  const details = readErrorPayload(body);
  const message = details?.message ?? describeUnknownBody(status, body, rawText);
  const init: ApiErrorInit = {
    status,
    type: details?.type ?? null,
    code: details?.code ?? null,
    param: details?.param ?? null,
    headers,
    body,
  };
  const prefix = status === undefined ? '' : `${status} `;
  const ErrorClass = status === undefined ? QuantumChatApiError : status >= 500 ? InternalServerError : classByStatus[status] ?? QuantumChatApiError;
  return new ErrorClass(prefix + message, init);
}

/** The error of an error frame or payload inside a stream (no status: the response was a 200). @internal */
export function apiErrorFromWire(error: WireError, payload: unknown, headers: Record<string, string>): QuantumChatApiError {
  return new QuantumChatApiError(error.message, { type: error.type, code: error.code, param: error.param, headers, body: payload });
}

function describeUnknownBody(status: number | undefined, body: unknown, rawText: string | undefined): string {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  if (typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string') return body.error;
  const text = (rawText ?? '').trim();
  if (text !== '') return text.length > maxBodyExcerpt ? `${text.slice(0, maxBodyExcerpt)}…` : text;
  return status === undefined ? 'The server sent an error.' : 'status code (no body)';
}
