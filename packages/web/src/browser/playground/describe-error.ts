import { QuantumChatApiError } from '@quantum-chat/client';

/** What the playground shows of a failure. */
export interface ErrorDetails {
  /** The envelope's `type` (`permission_error`, …), or the error class for failures without one. */
  type: string;
  message: string;
  code: string | undefined;
  status: number | undefined;
  param: string | undefined;
  requestId: string | undefined;
}

/** The envelope's own message: the client prefixes the status to `error.message`. */
function envelopeMessage(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : undefined;
}

/**
 * The type, code, status and message of anything a request threw: API errors (an HTTP error
 * or an error frame inside a stream) carry the envelope's fields; connection failures and
 * bugs show their class name as the type.
 *
 * @example
 * describeError(new PermissionDeniedError('…', { status: 403, type: 'permission_error', code: 'plan_required' })).type; // 'permission_error'
 */
export function describeError(error: unknown): ErrorDetails {
  if (QuantumChatApiError.isInstance(error)) {
    return {
      type: error.type ?? error.name,
      message: envelopeMessage(error.body) ?? error.message,
      code: error.code ?? undefined,
      status: error.status,
      param: error.param ?? undefined,
      requestId: error.requestId,
    };
  }
  const type = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return { type, message, code: undefined, status: undefined, param: undefined, requestId: undefined };
}
