/** An error an OpenAI-style server sent, in whichever shape it used. */
export interface WireError {
  message: string;
  type: string | null;
  /** Always a string: a numeric code is written in decimal. */
  code: string | null;
  param: string | null;
  /** The HTTP status the payload names (a numeric `code` or `status` from 400 to 599), if any. */
  status: number | undefined;
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const unknownMessage = 'unknown error';

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value < 600 ? value : undefined;
}

/** The fields of an error object: our envelope's `error`, or vLLM's flat payload itself. */
function fromObject(error: Loose): WireError {
  const code = error.code;
  return {
    message: typeof error.message === 'string' ? error.message : unknownMessage,
    type: stringOrNull(error.type),
    code: typeof code === 'string' ? code : typeof code === 'number' && Number.isFinite(code) ? String(code) : null,
    param: stringOrNull(error.param),
    status: httpStatus(code) ?? httpStatus(error.status),
  };
}

function fromMessage(message: string): WireError {
  return { message, type: null, code: null, param: null, status: undefined };
}

/** FastAPI's `detail`: a string, or a list of `{ msg }` validation problems. */
function detailMessage(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  const messages = detail.map((item) => (isObject(item) && typeof item.msg === 'string' ? item.msg : undefined)).filter((item) => item !== undefined);
  return messages.length > 0 ? messages.join('; ') : undefined;
}

/**
 * The error in a payload an OpenAI-style server sent (an HTTP error body, an `event: error`
 * frame, or a data line in the middle of a stream), or `undefined` when the payload is not an
 * error. The shapes servers use:
 *
 * - `{"error":{"message","type","param","code"}}`: ours (docs/spec/decisions.md §5), OpenAI,
 *   and most others (any field may be missing; `code` may be a number);
 * - `{"error":"…"}` (Ollama, llama.cpp);
 * - `{"object":"error","message","type","param","code"}` (vLLM, with the HTTP status as `code`);
 * - `{"detail":"…"}` or `{"detail":[{"msg"}]}` (FastAPI-based servers).
 *
 * Cheap on a normal chunk (three property reads), so it runs on every one.
 *
 * @example
 * readErrorPayload({ object: 'error', message: 'overloaded', code: 503 }); // { message: 'overloaded', type: null, code: '503', param: null, status: 503 }
 * readErrorPayload({ choices: [] }); // undefined
 */
export function readErrorPayload(value: unknown): WireError | undefined {
  if (!isObject(value)) return undefined;
  const error = value.error;
  if (isObject(error)) return fromObject(error);
  if (typeof error === 'string') return fromMessage(error);
  if (value.object === 'error') return fromObject(value);
  if (value.detail !== undefined) {
    const message = detailMessage(value.detail);
    return message === undefined ? undefined : fromMessage(message);
  }
  return undefined;
}
