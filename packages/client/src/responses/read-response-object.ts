import { readErrorPayload, type ResponseObject } from '@quantum-chat/core/dialect';
import { APIResponseValidationError } from '../errors/connection-errors.js';
import { createApiError } from '../errors/create-api-error.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks that a 2xx body is a `Response` (an object with an `id`, a `status` and an `output`
 * array) and returns it as sent, extra fields included. A 200 holding an error payload throws
 * that error.
 *
 * @internal
 */
export function readResponseObject(body: unknown, headers: Record<string, string>): ResponseObject {
  if (isObject(body) && body.output === undefined && readErrorPayload(body) !== undefined) throw createApiError(undefined, body, headers);
  if (!isObject(body) || typeof body.id !== 'string' || typeof body.status !== 'string' || !Array.isArray(body.output)) {
    throw new APIResponseValidationError('The response is not a Response object (no `id`, `status` or `output[]`).', { headers, body });
  }
  return body as unknown as ResponseObject;
}
