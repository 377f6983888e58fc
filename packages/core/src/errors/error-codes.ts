/**
 * The one table that owns every wire error code: its HTTP status and envelope `type`
 * (decisions §5). Adding a code means adding a row here and nowhere else; an app that
 * answers codes of its own adds them to this table with `extendErrorCodes`, never beside it.
 */
export const errorCodes = {
  invalid_json: { status: 400, type: 'invalid_request_error' },
  missing_required_parameter: { status: 400, type: 'invalid_request_error' },
  invalid_type: { status: 400, type: 'invalid_request_error' },
  invalid_value: { status: 400, type: 'invalid_request_error' },
  unsupported_value: { status: 400, type: 'invalid_request_error' },
  invalid_tool_schema: { status: 400, type: 'invalid_request_error' },
  nesting_too_deep: { status: 400, type: 'invalid_request_error' },
  invalid_encoding: { status: 400, type: 'invalid_request_error' },
  missing_api_key: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_signature: { status: 401, type: 'authentication_error' },
  plan_required: { status: 403, type: 'permission_error' },
  model_not_allowed: { status: 403, type: 'permission_error' },
  model_not_found: { status: 404, type: 'invalid_request_error' },
  unknown_url: { status: 404, type: 'invalid_request_error' },
  stream_not_found: { status: 404, type: 'invalid_request_error' },
  response_not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  stream_in_progress: { status: 409, type: 'invalid_request_error' },
  cancelled: { status: 409, type: 'invalid_request_error' },
  request_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  insufficient_quota: { status: 429, type: 'insufficient_quota' },
  internal_error: { status: 500, type: 'server_error' },
  upstream_error: { status: 502, type: 'server_error' },
  stream_lost: { status: 502, type: 'server_error' },
  engine_unavailable: { status: 503, type: 'server_error' },
  shutting_down: { status: 503, type: 'server_error' },
  store_unavailable: { status: 503, type: 'server_error' },
  overloaded: { status: 503, type: 'server_error' },
  upstream_timeout: { status: 504, type: 'server_error' },
} as const satisfies Record<string, { status: number; type: string }>;

/** A wire error code (decisions §5). */
export type ErrorCode = keyof typeof errorCodes;

/** The envelope `type` values we send. */
export type ErrorType = (typeof errorCodes)[ErrorCode]['type'];

/** Status and type for a code, from the one table. */
export function describeErrorCode(code: ErrorCode): { status: number; type: ErrorType } {
  return errorCodes[code];
}

/** True when `value` is one of our wire codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(errorCodes, value);
}

/** One row of an error table: the HTTP status and envelope `type` of a code. */
export interface ErrorCodeRow {
  readonly status: number;
  readonly type: string;
}

/** An error table: the core's (`errorCodes`), or the core's extended by an app's codes. */
export type ErrorCodeTable<Code extends string = string> = { readonly [K in Code]: ErrorCodeRow };

/** An app's own rows: every code new (a core code keeps the meaning the core gives it). */
type OwnRows<Own> = { readonly [K in keyof Own]: K extends ErrorCode ? never : ErrorCodeRow };

/**
 * The core's table with an app's own codes added: one table, which `QuantumChatError` takes
 * as its `codes` option, so an app's refusals are the core's errors, in the same envelope.
 * A code the core already has is refused, here and in the types.
 *
 * @example
 * const serverErrorCodes = extendErrorCodes({ key_rotated: { status: 409, type: 'invalid_request_error' } });
 * throw new QuantumChatError('key_rotated', 'The key was rotated.', { codes: serverErrorCodes });
 */
export function extendErrorCodes<const Own extends Record<string, ErrorCodeRow>>(own: Own & OwnRows<Own>): typeof errorCodes & Own {
  for (const code of Object.keys(own)) {
    if (isErrorCode(code)) throw new TypeError(`The error code '${code}' is the core's; an app adds codes of its own, it does not redefine the core's.`);
  }
  return { ...errorCodes, ...own };
}
