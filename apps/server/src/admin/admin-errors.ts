// The admin API's own failures: codes of its own, added to the core's one error table, and
// answered in the same envelope as every other failure (decisions §5).
import { extendErrorCodes, QuantumChatError, type QuantumChatErrorOptions } from '@quantum-chat/core';
import { toErrorHttpResponse } from '@quantum-chat/core/host';
import type { FastifyReply } from 'fastify';

/**
 * The codes only the admin API sends; everything else it answers with the core's codes
 * (`invalid_value`, `missing_required_parameter`, `unknown_url`, `method_not_allowed`, ...).
 */
export const adminErrorCodes = {
  missing_admin_token: { status: 401, type: 'authentication_error' },
  invalid_admin_token: { status: 401, type: 'authentication_error' },
  organisation_not_found: { status: 404, type: 'invalid_request_error' },
  key_not_found: { status: 404, type: 'invalid_request_error' },
  organisation_exists: { status: 409, type: 'invalid_request_error' },
  key_revoked: { status: 409, type: 'invalid_request_error' },
  key_expired: { status: 409, type: 'invalid_request_error' },
  key_rotated: { status: 409, type: 'invalid_request_error' },
  too_many_failed_admin_tokens: { status: 429, type: 'rate_limit_error' },
} as const;

/** The server's error table: the core's codes and the admin API's, one table. */
export const serverErrorCodes = extendErrorCodes(adminErrorCodes);

export type AdminErrorCode = keyof typeof adminErrorCodes;

/**
 * A refusal of the admin API (or of the CLI, which calls the same service): a core error
 * whose code is one of the admin API's rows, hence a status and an envelope type.
 *
 * @example
 * throw adminError('key_not_found', "There is no key 'key_x'.", { param: 'id' });
 */
export function adminError<Code extends AdminErrorCode>(code: Code, message: string, options: QuantumChatErrorOptions = {}): QuantumChatError<Code> {
  return new QuantumChatError(code, message, { ...options, codes: serverErrorCodes });
}

/** True for a refusal with one of the admin API's own codes (not the core's). */
export function isAdminError(error: unknown): error is QuantumChatError<AdminErrorCode> {
  return QuantumChatError.isInstance<string>(error) && Object.prototype.hasOwnProperty.call(adminErrorCodes, error.code);
}

/**
 * Answers with the error envelope, as the core words any error (unknown errors masked as a
 * 500 `internal_error`).
 *
 * @example
 * return sendAdminError(reply, adminError('organisation_not_found', "There is no organisation 'acme'."));
 */
export function sendAdminError(reply: FastifyReply, error: unknown): FastifyReply {
  const response = toErrorHttpResponse(error);
  return reply.code(response.status).headers(response.headers).send(response.body);
}
