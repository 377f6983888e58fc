import { hasMarker, QuantumChatApiError } from './api-error.js';

/*
 * One class per status, as in the `openai` SDK, so callers branch with `isInstance` (or
 * `instanceof`) instead of comparing numbers. Each class has its own `Symbol.for` marker, so
 * `isInstance` survives two installed copies of the package. `status` is always set here.
 */

const badRequestErrorMarker = Symbol.for('quantum-chat.client.bad-request-error');
const authenticationErrorMarker = Symbol.for('quantum-chat.client.authentication-error');
const permissionDeniedErrorMarker = Symbol.for('quantum-chat.client.permission-denied-error');
const notFoundErrorMarker = Symbol.for('quantum-chat.client.not-found-error');
const conflictErrorMarker = Symbol.for('quantum-chat.client.conflict-error');
const unprocessableEntityErrorMarker = Symbol.for('quantum-chat.client.unprocessable-entity-error');
const rateLimitErrorMarker = Symbol.for('quantum-chat.client.rate-limit-error');
const internalServerErrorMarker = Symbol.for('quantum-chat.client.internal-server-error');

/** 400: the request was refused; `param` names the field. */
export class BadRequestError extends QuantumChatApiError {
  readonly [badRequestErrorMarker] = true;
  declare readonly status: number;
  override name = 'BadRequestError';
  static override isInstance(value: unknown): value is BadRequestError {
    return hasMarker(value, badRequestErrorMarker);
  }
}

/** 401: the API key is missing or invalid, or the request signature failed. */
export class AuthenticationError extends QuantumChatApiError {
  readonly [authenticationErrorMarker] = true;
  declare readonly status: number;
  override name = 'AuthenticationError';
  static override isInstance(value: unknown): value is AuthenticationError {
    return hasMarker(value, authenticationErrorMarker);
  }
}

/** 403: the key is valid but not allowed (for example `plan_required`). */
export class PermissionDeniedError extends QuantumChatApiError {
  readonly [permissionDeniedErrorMarker] = true;
  declare readonly status: number;
  override name = 'PermissionDeniedError';
  static override isInstance(value: unknown): value is PermissionDeniedError {
    return hasMarker(value, permissionDeniedErrorMarker);
  }
}

/** 404: unknown model (`model_not_found`) or path (`unknown_url`). */
export class NotFoundError extends QuantumChatApiError {
  readonly [notFoundErrorMarker] = true;
  declare readonly status: number;
  override name = 'NotFoundError';
  static override isInstance(value: unknown): value is NotFoundError {
    return hasMarker(value, notFoundErrorMarker);
  }
}

/** 409: a conflict; retried by default. */
export class ConflictError extends QuantumChatApiError {
  readonly [conflictErrorMarker] = true;
  declare readonly status: number;
  override name = 'ConflictError';
  static override isInstance(value: unknown): value is ConflictError {
    return hasMarker(value, conflictErrorMarker);
  }
}

/** 422: the request was understood but cannot be processed. */
export class UnprocessableEntityError extends QuantumChatApiError {
  readonly [unprocessableEntityErrorMarker] = true;
  declare readonly status: number;
  override name = 'UnprocessableEntityError';
  static override isInstance(value: unknown): value is UnprocessableEntityError {
    return hasMarker(value, unprocessableEntityErrorMarker);
  }
}

/** 429: a rate limit (`rate_limit_exceeded`, retried) or exhausted quota (`insufficient_quota`, not retried). */
export class RateLimitError extends QuantumChatApiError {
  readonly [rateLimitErrorMarker] = true;
  declare readonly status: number;
  override name = 'RateLimitError';
  static override isInstance(value: unknown): value is RateLimitError {
    return hasMarker(value, rateLimitErrorMarker);
  }
}

/** 500 and above: the server or its engine failed; retried by default. */
export class InternalServerError extends QuantumChatApiError {
  readonly [internalServerErrorMarker] = true;
  declare readonly status: number;
  override name = 'InternalServerError';
  static override isInstance(value: unknown): value is InternalServerError {
    return hasMarker(value, internalServerErrorMarker);
  }
}
