import { hasMarker, QuantumChatApiError } from './api-error.js';

const connection = Symbol.for('quantum-chat.client.api-connection-error');
const timeout = Symbol.for('quantum-chat.client.api-connection-timeout-error');
const userAbort = Symbol.for('quantum-chat.client.api-user-abort-error');
const validation = Symbol.for('quantum-chat.client.api-response-validation-error');

/**
 * The server could not be reached, or the connection broke: before the response (retried) or
 * in the middle of a stream, including a stream that ended without `[DONE]` (never retried).
 */
export class APIConnectionError extends QuantumChatApiError {
  readonly [connection] = true;
  constructor(message = 'Connection error.', options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, options);
    this.name = 'APIConnectionError';
  }
  static override isInstance(value: unknown): value is APIConnectionError {
    return hasMarker(value, connection);
  }
}

/** The request took longer than `timeout` (retried like a connection error). */
export class APIConnectionTimeoutError extends APIConnectionError {
  readonly [timeout] = true;
  constructor(message = 'Request timed out.', options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'APIConnectionTimeoutError';
  }
  static override isInstance(value: unknown): value is APIConnectionTimeoutError {
    return hasMarker(value, timeout);
  }
}

/** The caller aborted: an `AbortSignal`, `stream.abort()`, or breaking out of a stream. Never retried. */
export class APIUserAbortError extends QuantumChatApiError {
  readonly [userAbort] = true;
  constructor(message = 'Request was aborted.', options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'APIUserAbortError';
  }
  static override isInstance(value: unknown): value is APIUserAbortError {
    return hasMarker(value, userAbort);
  }
}

/** The server answered 2xx with something that is not what the API sends (not JSON, wrong shape). */
export class APIResponseValidationError extends QuantumChatApiError {
  readonly [validation] = true;
  constructor(message: string, options: { cause?: unknown; headers?: Record<string, string>; status?: number; body?: unknown } = {}) {
    super(message, options);
    this.name = 'APIResponseValidationError';
  }
  static override isInstance(value: unknown): value is APIResponseValidationError {
    return hasMarker(value, validation);
  }
}
