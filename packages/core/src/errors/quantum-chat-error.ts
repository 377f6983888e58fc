import { errorCodes, type ErrorCode, type ErrorCodeRow, type ErrorCodeTable, type ErrorType } from './error-codes.js';

const marker = Symbol.for('quantum-chat.error');

export interface QuantumChatErrorOptions {
  /** The request field at fault, written the JavaScript way (`messages[0].role`). */
  param?: string | null;
  /** Extra response headers (`retry-after`, `allow`, ...). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The options of an error whose code is an app's own: the extended table it is a row of. */
export interface QuantumChatErrorTableOptions<Code extends string> extends QuantumChatErrorOptions {
  /** The table that holds `code` (from `extendErrorCodes`). */
  codes: ErrorCodeTable<Code>;
}

/**
 * An error that crosses the wire: it carries a code from the one table, and so a status and
 * an envelope type. The marker survives two installed copies of this package, where
 * `instanceof` would not.
 *
 * @example
 * throw new QuantumChatError('model_not_found', 'The model `gpt-9` does not exist.', { param: 'model' });
 */
export class QuantumChatError<Code extends string = ErrorCode> extends Error {
  readonly [marker] = true;
  readonly code: Code;
  readonly status: number;
  readonly type: [Code] extends [ErrorCode] ? ErrorType : string;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  /** A core code (`errorCodes`). */
  constructor(code: Code & ErrorCode, message: string, options?: QuantumChatErrorOptions);
  /** An app's code, from the table `extendErrorCodes` made. */
  constructor(code: Code, message: string, options: QuantumChatErrorTableOptions<Code>);
  constructor(code: Code, message: string, options: QuantumChatErrorOptions & { codes?: ErrorCodeTable<Code> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'QuantumChatError';
    const row: ErrorCodeRow | undefined = (options.codes ?? (errorCodes as ErrorCodeTable))[code];
    if (row === undefined) throw new TypeError(`Unknown error code '${code}': add it to the table with extendErrorCodes.`);
    this.code = code;
    this.status = row.status;
    this.type = row.type as this['type'];
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  /** True for any QuantumChatError, from this copy of the package or another. */
  static isInstance<Code extends string = ErrorCode>(error: unknown): error is QuantumChatError<Code> {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
