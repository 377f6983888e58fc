import { APIConnectionError, PermissionDeniedError, QuantumChatApiError } from '@quantum-chat/client';
import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error.js';

describe('describeError', () => {
  it("should show an HTTP error's envelope: type, code, status, param, the envelope's own message and the request id", () => {
    const body = { error: { message: "The model 'quantum-pro' requires the 'elite' plan.", type: 'permission_error', param: 'model', code: 'plan_required' } };
    const error = new PermissionDeniedError(`403 ${body.error.message}`, { status: 403, type: 'permission_error', code: 'plan_required', param: 'model', body, headers: { 'x-request-id': 'req_1' } });
    expect(describeError(error)).toEqual({ type: 'permission_error', message: body.error.message, code: 'plan_required', status: 403, param: 'model', requestId: 'req_1' });
  });

  it('should show an error frame of a stream without a status', () => {
    const error = new QuantumChatApiError('The engine is unavailable.', { type: 'server_error', code: 'engine_unavailable' });
    expect(describeError(error)).toMatchObject({ type: 'server_error', code: 'engine_unavailable', status: undefined, message: 'The engine is unavailable.' });
  });

  it('should name failures without an envelope by their class', () => {
    expect(describeError(new APIConnectionError())).toMatchObject({ type: 'APIConnectionError', message: 'Connection error.' });
    expect(describeError(new TypeError('bad'))).toMatchObject({ type: 'TypeError', message: 'bad', code: undefined });
    expect(describeError('odd')).toMatchObject({ type: 'Error', message: 'odd' });
  });
});
