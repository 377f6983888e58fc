// The admin API's own failures, in the same envelope as every other answer (decisions §5).
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
} as const satisfies Record<string, { status: number; type: string }>;

export type AdminErrorCode = keyof typeof adminErrorCodes;

/**
 * A refusal of the admin API (or of the CLI, which calls the same service): a code of the
 * table above, hence a status and an envelope type.
 *
 * @example
 * throw new AdminApiError('key_not_found', "There is no key 'key_x'.", { param: 'id' });
 */
export class AdminApiError extends Error {
  readonly code: AdminErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(code: AdminErrorCode, message: string, options: { param?: string | null; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AdminApiError';
    this.code = code;
    this.status = adminErrorCodes[code].status;
    this.type = adminErrorCodes[code].type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }
}

/**
 * Answers with the error envelope: an `AdminApiError` as it is, anything else as the core
 * words it (unknown errors masked as a 500 `internal_error`).
 *
 * @example
 * return sendAdminError(reply, new AdminApiError('organisation_not_found', "There is no organisation 'acme'."));
 */
export function sendAdminError(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof AdminApiError) {
    const envelope = { error: { message: error.message, type: error.type, param: error.param, code: error.code } };
    return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(JSON.stringify(envelope));
  }
  const response = toErrorHttpResponse(error);
  return reply.code(response.status).headers(response.headers).send(response.body);
}
