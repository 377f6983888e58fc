import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

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
