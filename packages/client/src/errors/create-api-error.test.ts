import { describe, expect, it } from 'vitest';
import { QuantumChatApiError } from './api-error.js';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from './connection-errors.js';
import { createApiError } from './create-api-error.js';
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

const envelope = (code: string) => ({ error: { message: 'Nope.', type: 'invalid_request_error', param: 'model', code } });

describe('createApiError', () => {
  it('should pick the class of the status, like the openai SDK', () => {
    const cases = [
      [400, BadRequestError],
      [401, AuthenticationError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [409, ConflictError],
      [422, UnprocessableEntityError],
      [429, RateLimitError],
      [500, InternalServerError],
      [503, InternalServerError],
    ] as const;
    for (const [status, ErrorClass] of cases) {
      const error = createApiError(status, envelope('x'), { 'x-request-id': 'req_1' });
      expect(error).toBeInstanceOf(ErrorClass);
      expect(ErrorClass.isInstance(error)).toBe(true);
      expect(QuantumChatApiError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status, code: 'x', param: 'model', type: 'invalid_request_error', requestId: 'req_1', message: `${status} Nope.` });
    }
    const other = createApiError(415, envelope('unsupported_media_type'), {});
    expect(other.constructor).toBe(QuantumChatApiError);
  });

  it('should tell the classes apart by marker alone', () => {
    const error = createApiError(404, envelope('model_not_found'), {});
    expect(BadRequestError.isInstance(error)).toBe(false);
    // A copy from another installation: a plain object with the marker.
    const foreign = { [Symbol.for('quantum-chat.client.not-found-error')]: true };
    expect(NotFoundError.isInstance(foreign)).toBe(true);
  });

  it('should read what other servers send: numeric codes, a string error, HTML', () => {
    expect(createApiError(429, { error: { message: 'slow down', code: 429 } }, {})).toMatchObject({ code: '429', type: null, param: null });
    expect(createApiError(404, { error: 'model "x" not found' }, {}).message).toBe('404 model "x" not found');
    expect(createApiError(502, undefined, {}, '<html>Bad gateway</html>').message).toBe('502 <html>Bad gateway</html>');
  });

  it('should keep connection, timeout and abort errors without a status', () => {
    const timeout = new APIConnectionTimeoutError();
    expect(APIConnectionError.isInstance(timeout)).toBe(true);
    expect(QuantumChatApiError.isInstance(new APIUserAbortError())).toBe(true);
    expect(APIConnectionError.isInstance(new APIUserAbortError())).toBe(false);
    expect(timeout.status).toBeUndefined();
  });
});
