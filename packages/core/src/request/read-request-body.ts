import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatHttpReadBody, ChatHttpRequest } from '../contract/chat-http-types.js';
import { checkParsedBody, decodeUtf8Body, parseJsonBody } from './parse-json-body.js';

/** The default body limit: 1 MiB (decisions §2). */
export const defaultMaxBodyBytes = 1024 * 1024;

/** A parsed body and, when the host gave them, its raw bytes (for signatures). */
export interface ReadBody {
  value: unknown;
  bytes: Uint8Array | undefined;
}

const textEncoder = new TextEncoder();

function headerValue(headers: ChatHttpRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The `charset` parameter of a content type, quotes removed. */
const charsetParameter = /;\s*charset\s*=\s*"?([^";]*)"?/iu;

function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (essence !== 'application/json' && !(essence.startsWith('application/') && essence.endsWith('+json'))) return false;
  // A charset other than UTF-8 is refused (decisions §2: 415): the body would be misread as UTF-8.
  const charset = contentType.includes(';') ? charsetParameter.exec(contentType)?.[1]?.trim().toLowerCase() : undefined;
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

function tooLarge(maxBodyBytes: number): QuantumChatError {
  return new QuantumChatError('request_too_large', `The request body is larger than ${maxBodyBytes} bytes.`);
}

function unsupportedMediaType(contentType: string | undefined): QuantumChatError {
  return new QuantumChatError('unsupported_media_type', `Unsupported content type '${(contentType ?? 'none').slice(0, 100)}'; send application/json.`);
}

/** The default request timeout: headers and body within 30 s (decisions §5, §9). */
export const defaultRequestTimeoutMs = 30_000;

/**
 * 408 `request_timeout`: the request did not arrive in time. The connection is closed after
 * the answer, so a client still trickling the rest cannot hold it.
 */
export function requestTimeoutError(timeoutMs?: number): QuantumChatError {
  const within = timeoutMs === undefined ? 'within the request timeout' : `within ${timeoutMs} ms`;
  return new QuantumChatError('request_timeout', `The request's headers and body did not arrive ${within}; send it again.`, { headers: { connection: 'close' } });
}

/** The error for a body the host refused itself (its own parser, limit or request timeout). */
export function bodyRejectionError(reason: 'too-large' | 'unreadable' | 'invalid-json' | 'timed-out', maxBodyBytes = defaultMaxBodyBytes): QuantumChatError {
  if (reason === 'too-large') return tooLarge(maxBodyBytes);
  if (reason === 'timed-out') return requestTimeoutError();
  if (reason === 'invalid-json') return new QuantumChatError('invalid_json', 'The request body is not valid JSON.');
  return new QuantumChatError('invalid_json', 'The request body could not be read.');
}

/**
 * The error for a request a host's framework refused by status before the handler saw it
 * (its own body limit, content-type check or parser): the same code and wording the core
 * would have given.
 */
export function hostStatusError(status: number, request: { headers?: ChatHttpRequest['headers']; maxBodyBytes?: number } = {}): QuantumChatError {
  if (status === 413) return tooLarge(request.maxBodyBytes ?? defaultMaxBodyBytes);
  if (status === 408) return requestTimeoutError();
  if (status === 415) return unsupportedMediaType(request.headers === undefined ? undefined : headerValue(request.headers, 'content-type'));
  return bodyRejectionError('unreadable');
}

/**
 * Checks a POST body under the rules of decisions §2, in their order: size (413), content
 * type (415), encoding, depth and JSON (400). An `unread` body is read first (see
 * `readRequestBody`).
 */
function checkRequestBody(headers: ChatHttpRequest['headers'], body: ChatHttpReadBody, maxBodyBytes: number, timeoutMs?: number): ReadBody {
  if (body.kind === 'rejected') throw body.reason === 'timed-out' ? requestTimeoutError(timeoutMs) : bodyRejectionError(body.reason, maxBodyBytes);
  if (body.kind === 'bytes' && body.bytes.byteLength > maxBodyBytes) throw tooLarge(maxBodyBytes);
  if (body.kind === 'text' && body.text.length > maxBodyBytes) throw tooLarge(maxBodyBytes);
  const contentType = headerValue(headers, 'content-type');
  if (!isJsonContentType(contentType)) {
    if (body.kind === 'empty' && contentType === undefined) {
      throw new QuantumChatError('invalid_json', 'The request body is empty; send a JSON object with content-type application/json.');
    }
    throw unsupportedMediaType(contentType);
  }
  switch (body.kind) {
    case 'empty':
      return { value: parseJsonBody(''), bytes: undefined };
    case 'parsed':
      return { value: checkParsedBody(body.value), bytes: undefined };
    case 'text': {
      const bytes = textEncoder.encode(body.text);
      if (bytes.byteLength > maxBodyBytes) throw tooLarge(maxBodyBytes);
      return { value: parseJsonBody(body.text), bytes };
    }
    case 'bytes':
      return { value: parseJsonBody(decodeUtf8Body(body.bytes)), bytes: body.bytes };
  }
}


const timedOut: ChatHttpReadBody = { kind: 'rejected', reason: 'timed-out' };

/** The body a host reads, or `timed-out` once `timeoutMs` passed first (the read is left to the host's close). */
function readWithin(read: Promise<ChatHttpReadBody>, timeoutMs: number): Promise<ChatHttpReadBody> {
  if (!(timeoutMs > 0 && timeoutMs < Number.POSITIVE_INFINITY)) return read;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(timedOut), timeoutMs);
    void read.then((body) => {
      clearTimeout(timer);
      resolve(body);
    });
  });
}

/**
 * Reads and checks a POST body: an `unread` one under the handler's limit and within its
 * request timeout (the only await on this path, and only for hosts that hand the body over
 * unread), anything else at once.
 */
export function readRequestBody(request: ChatHttpRequest, maxBodyBytes: number, timeoutMs = 0): ReadBody | Promise<ReadBody> {
  const { body } = request;
  if (body.kind !== 'unread') return checkRequestBody(request.headers, body, maxBodyBytes, timeoutMs);
  return readWithin(body.read(maxBodyBytes), timeoutMs).then((read) => checkRequestBody(request.headers, read, maxBodyBytes, timeoutMs));
}

export { headerValue };
