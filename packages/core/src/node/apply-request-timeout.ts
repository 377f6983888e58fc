import { toErrorResponseParts } from '../errors/to-error-envelope.js';
import { requestTimeoutError } from '../request/read-request-body.js';
import { generateRandomId } from '../ids.js';

/** A client socket as an `http.Server` hands it to `clientError` listeners. */
export interface NodeClientSocketLike {
  readonly destroyed: boolean;
  readonly writable: boolean;
  write(data: string): unknown;
  destroy(error?: Error): unknown;
}

/** What of a Node `http.Server` the request timeout sets (structural: the core imports nothing from `node:`). */
export interface NodeHttpServerLike {
  requestTimeout: number;
  headersTimeout: number;
  /** How often Node checks for timed-out requests; read when the server starts listening. */
  connectionsCheckingInterval?: number;
  prependListener(event: 'clientError', listener: (error: Error & { code?: string }, socket: NodeClientSocketLike) => void): unknown;
  listenerCount(event: 'clientError'): number;
}

/** The code Node gives a request that did not arrive within `server.requestTimeout`. */
const nodeRequestTimeoutCode = 'ERR_HTTP_REQUEST_TIMEOUT';

/** Servers given a timeout already: their listener is installed once. */
const applied = new WeakSet<object>();

/** Node's own answers to a malformed request, for when our listener is the only one (it replaces Node's). */
function nodeDefaultResponse(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n';
  return 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';
}

/** The 408 in the error envelope, as raw HTTP: there is no request object to answer through. */
function timeoutResponse(timeoutMs: number): string {
  const { status, envelope } = toErrorResponseParts(requestTimeoutError(timeoutMs));
  const body = JSON.stringify(envelope);
  return [
    `HTTP/1.1 ${status} Request Timeout`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${new TextEncoder().encode(body).byteLength}`,
    `x-request-id: ${generateRandomId('request')}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Whether a response already started on the socket (then nothing more may be written). */
function responseStarted(socket: NodeClientSocketLike): boolean {
  // Node's in-flight ServerResponse on this socket; not in its types, but what its own handler reads.
  return (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
}

/**
 * Gives a Node HTTP server the handler's request timeout (decisions §5, §9): a request whose
 * headers and body have not all arrived within `requestTimeoutMs` of its first byte gets 408
 * `request_timeout` in the error envelope, and its connection is closed, so a client that
 * trickles bytes cannot hold it. Sets the server's `requestTimeout` and `headersTimeout`, has
 * Node check often enough to keep to it, and answers Node's timeout in the envelope (before
 * any other `clientError` listener, a framework's included). Call it before the server starts
 * listening (right after `listen()` returns is early enough). A timeout of 0 changes nothing.
 *
 * @example
 * const server = app.listen(8080, '127.0.0.1');
 * applyRequestTimeout(server, handler); // handler.requestTimeoutMs, 30 s by default
 */
export function applyRequestTimeout(server: NodeHttpServerLike, options: { requestTimeoutMs: number }): void {
  const timeoutMs = options.requestTimeoutMs;
  if (!(timeoutMs > 0) || applied.has(server)) return;
  applied.add(server);
  server.requestTimeout = timeoutMs;
  server.headersTimeout = server.headersTimeout > 0 ? Math.min(server.headersTimeout, timeoutMs) : timeoutMs;
  // Node checks every 30 s by default: a 30 s timeout would fire anywhere up to 60 s.
  server.connectionsCheckingInterval = Math.max(10, Math.min(1000, Math.floor(timeoutMs / 4)));
  server.prependListener('clientError', (error, socket) => {
    if (error.code !== nodeRequestTimeoutCode) {
      // A `clientError` listener replaces Node's own answer: alone, ours gives it.
      if (server.listenerCount('clientError') === 1 && !socket.destroyed) {
        if (socket.writable && !responseStarted(socket)) socket.write(nodeDefaultResponse(error.code));
        socket.destroy(error);
      }
      return;
    }
    if (socket.destroyed) return;
    if (socket.writable && !responseStarted(socket)) socket.write(timeoutResponse(timeoutMs));
    socket.destroy(error);
  });
}

/**
 * Whether a request's body stopped arriving because the server's request timeout passed (its
 * socket was closed with Node's timeout error): a host then hands the core `{ kind:
 * 'rejected', reason: 'timed-out' }`, so the request is recorded as the 408 it was.
 */
export function requestTimedOut(req: { readonly socket?: { readonly errored?: unknown } | null }): boolean {
  return (req.socket?.errored as { code?: unknown } | null | undefined)?.code === nodeRequestTimeoutCode;
}
