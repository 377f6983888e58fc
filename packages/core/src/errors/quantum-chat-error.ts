import { describeErrorCode, type ErrorCode, type ErrorType } from './error-codes.js';

const marker = Symbol.for('quantum-chat.error');

export interface QuantumChatErrorOptions {
  /** The request field at fault, written the JavaScript way (`messages[0].role`). */
  param?: string | null;
  /** Extra response headers (`retry-after`, `allow`, ...). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * An error that crosses the wire: it carries a code from the one table, and so a status and
 * an envelope type. The marker survives two installed copies of this package, where
 * `instanceof` would not.
 *
 * @example
 * throw new QuantumChatError('model_not_found', 'The model `gpt-9` does not exist.', { param: 'model' });
 */
export class QuantumChatError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: QuantumChatErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'QuantumChatError';
    const { status, type } = describeErrorCode(code);
    this.code = code;
    this.status = status;
    this.type = type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  /** True for any QuantumChatError, from this copy of the package or another. */
  static isInstance(error: unknown): error is QuantumChatError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
