const marker = Symbol.for('quantum-chat.client.api-error');

/** What an API error carries besides its message. */
export interface ApiErrorInit {
  /** The HTTP status; `undefined` for connection, timeout and abort errors and mid-stream error frames. */
  status?: number | undefined;
  /** The envelope's `type` (`invalid_request_error`, `rate_limit_error`, ...). */
  type?: string | null | undefined;
  /** The envelope's `code` (`model_not_found`, `plan_required`, ...), always a string. */
  code?: string | null | undefined;
  /** The request field at fault, written the JavaScript way (`messages[0].role`). */
  param?: string | null | undefined;
  /** The response headers, lower-case names. */
  headers?: Record<string, string> | undefined;
  /** The parsed error body, when there was one. */
  body?: unknown;
  cause?: unknown;
}

/** Reads a marker off an unknown value without trusting its prototype chain. @internal */
export function hasMarker(value: unknown, symbol: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;
}

/**
 * The base of every error the client throws, like the `openai` SDK's `APIError`: HTTP errors
 * (one subclass per status), error frames inside a stream, and connection, timeout and abort
 * errors (which have no status). `isInstance` checks a `Symbol.for` marker, so it still works
 * when two copies of this package are installed and `instanceof` would not.
 *
 * @example
 * try { await client.chat.completions.create(request); }
 * catch (error) { if (QuantumChatApiError.isInstance(error)) console.log(error.status, error.code, error.requestId); }
 */
export class QuantumChatApiError extends Error {
  readonly [marker] = true;
  readonly status: number | undefined;
  readonly type: string | null;
  readonly code: string | null;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  /** The server's `x-request-id`: quote it when you report a problem. */
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'QuantumChatApiError';
    this.status = init.status;
    this.type = init.type ?? null;
    this.code = init.code ?? null;
    this.param = init.param ?? null;
    this.headers = init.headers ?? {};
    this.requestId = this.headers['x-request-id'];
    this.body = init.body;
  }

  /** True for any error of this client, from this copy of the package or another. */
  static isInstance(value: unknown): value is QuantumChatApiError {
    return hasMarker(value, marker);
  }
}
