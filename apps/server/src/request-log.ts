import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The request as our log lines show it: these fields and no others, so that no header (an
 * `Authorization` key, an `X-Service-Signature`) can reach a log, whatever Fastify's own
 * serializer adds one day. Why listed rather than redacted: pino's `redact` copied every access
 * line's request object to look for headers that are never there (about 2 KB per request).
 */
export function requestLogFields(request: FastifyRequest): Record<string, unknown> {
  return { method: request.method, url: request.url, host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}


/**
 * Fastify's per-request log in one line instead of two: `request completed` carries the
 * request (method, url, host, remote address) beside the status and response time, so the
 * `incoming request` line Fastify writes first added nothing but a second serialisation and
 * write on every request. That line is still written at `debug`, for following a request that
 * has not finished yet. Errors and the other messages are Fastify's own.
 *
 * @example
 * Fastify({ logger, logController: new OneLineRequestLog() });
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    // At info (the default level) pino's debug is a no-op that serialises nothing.
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
