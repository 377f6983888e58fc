import { describe, expect, it } from 'vitest';
import { errorCodes, extendErrorCodes, isErrorCode } from './error-codes.js';
import { QuantumChatError } from './quantum-chat-error.js';
import { toErrorHttpResponse } from './to-error-envelope.js';

describe('extendErrorCodes', () => {
  const codes = extendErrorCodes({ key_rotated: { status: 409, type: 'invalid_request_error' }, too_many_tries: { status: 429, type: 'rate_limit_error' } });

  it("should answer an app's code from the one table, in the core's envelope", () => {
    const error = new QuantumChatError('key_rotated', 'The key was rotated.', { codes, param: 'expires_at' });
    expect(QuantumChatError.isInstance(error)).toBe(true);
    expect(toErrorHttpResponse(error)).toEqual({
      status: 409,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ error: { message: 'The key was rotated.', type: 'invalid_request_error', param: 'expires_at', code: 'key_rotated' } }),
    });
    const limited = new QuantumChatError('too_many_tries', 'Wait.', { codes, headers: { 'retry-after': '7' } });
    expect(toErrorHttpResponse(limited)).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
  });

  it("should keep the core's rows as they are, and the core's own table unchanged", () => {
    expect(codes.model_not_found).toEqual(errorCodes.model_not_found);
    expect(new QuantumChatError('model_not_found', 'No such model.', { codes }).status).toBe(404);
    expect(isErrorCode('key_rotated')).toBe(false);
    expect('key_rotated' in errorCodes).toBe(false);
  });

  it("should refuse to redefine a core code, and a code that is in no table", () => {
    // @ts-expect-error a core code cannot be redefined
    expect(() => extendErrorCodes({ model_not_found: { status: 400, type: 'invalid_request_error' } })).toThrow(/model_not_found/u);
    // @ts-expect-error an app's code needs its table
    expect(() => new QuantumChatError('key_rotated', 'The key was rotated.')).toThrow(/extendErrorCodes/u);
  });
});
