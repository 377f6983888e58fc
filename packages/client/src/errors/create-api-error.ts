import { lenientErrorEnvelopeSchema } from '@quantum-chat/core';
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
 * Builds the error for an error envelope: with a `status` from an HTTP response (the subclass
 * for that status), or without one for an error frame inside a stream (the base class). The
 * envelope is read leniently, since other servers leave out `type`, `param` or `code` or send
 * a number as `code`; a body that is not an envelope still gives a useful message.
 *
 * @internal
 */
export function createApiError(status: number | undefined, body: unknown, headers: Record<string, string>, rawText?: string): QuantumChatApiError {
  const envelope = lenientErrorEnvelopeSchema.safeParse(body);
  const details = envelope.success ? envelope.data.error : undefined;
  const message = details?.message ?? describeUnknownBody(status, body, rawText);
  const init: ApiErrorInit = {
    status,
    type: details?.type ?? null,
    code: details?.code === undefined || details.code === null ? null : String(details.code),
    param: details?.param ?? null,
    headers,
    body,
  };
  const prefix = status === undefined ? '' : `${status} `;
  const ErrorClass = status === undefined ? QuantumChatApiError : status >= 500 ? InternalServerError : classByStatus[status] ?? QuantumChatApiError;
  return new ErrorClass(prefix + message, init);
}

function describeUnknownBody(status: number | undefined, body: unknown, rawText: string | undefined): string {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  if (typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string') return body.error;
  const text = (rawText ?? '').trim();
  if (text !== '') return text.length > maxBodyExcerpt ? `${text.slice(0, maxBodyExcerpt)}…` : text;
  return status === undefined ? 'The server sent an error.' : 'status code (no body)';
}
