import { describe, expect, it } from 'vitest';
import { readErrorPayload } from './read-error-payload.js';

describe('readErrorPayload', () => {
  it.each([
    ['our envelope', { error: { message: 'Bad', type: 'invalid_request_error', param: 'model', code: 'invalid_value' } }, { message: 'Bad', type: 'invalid_request_error', param: 'model', code: 'invalid_value', status: undefined }],
    ['an envelope with only a message', { error: { message: 'Bad' } }, { message: 'Bad', type: null, param: null, code: null, status: undefined }],
    ['a numeric code that is an HTTP status', { error: { message: 'Slow down', code: 429 } }, { message: 'Slow down', type: null, param: null, code: '429', status: 429 }],
    ['a status field', { error: { message: 'Gone', status: 503, code: 'unavailable' } }, { message: 'Gone', type: null, param: null, code: 'unavailable', status: 503 }],
    ['an error string', { error: 'model not loaded' }, { message: 'model not loaded', type: null, param: null, code: null, status: undefined }],
    ['vLLM flat error', { object: 'error', message: 'vllm says no', type: 'BadRequestError', param: null, code: 400 }, { message: 'vllm says no', type: 'BadRequestError', param: null, code: '400', status: 400 }],
    ['a flat error without a message', { object: 'error' }, { message: 'unknown error', type: null, param: null, code: null, status: undefined }],
    ['FastAPI detail', { detail: 'Not Found' }, { message: 'Not Found', type: null, param: null, code: null, status: undefined }],
    ['FastAPI validation details', { detail: [{ loc: ['body', 'model'], msg: 'field required' }, { msg: 'bad' }] }, { message: 'field required; bad', type: null, param: null, code: null, status: undefined }],
    ['an envelope whose message is not a string', { error: { message: 5 } }, { message: 'unknown error', type: null, param: null, code: null, status: undefined }],
  ])('should read %s', (_name, payload, expected) => {
    expect(readErrorPayload(payload)).toEqual(expected);
  });

  it.each([[null], [undefined], ['text'], [[1]], [{}], [{ error: null }], [{ error: false }], [{ choices: [] }], [{ object: 'chat.completion.chunk' }], [{ detail: 5 }]])(
    'should not take %j for an error',
    (value) => {
      expect(readErrorPayload(value)).toBeUndefined();
    },
  );
});
