import { describe, expect, it } from 'vitest';
import * as client from './index.js';

describe('the main entry', () => {
  it('should export the client, the runner and every error class', () => {
    expect(Object.keys(client).sort()).toEqual([
      'APIConnectionError',
      'APIConnectionTimeoutError',
      'APIResponseValidationError',
      'APIUserAbortError',
      'AuthenticationError',
      'BadRequestError',
      'ConflictError',
      'InternalServerError',
      'NotFoundError',
      'PermissionDeniedError',
      'QuantumChatApiError',
      'RateLimitError',
      'UnprocessableEntityError',
      'createChatClient',
      'defineTool',
      'runTools',
    ]);
  });
});
