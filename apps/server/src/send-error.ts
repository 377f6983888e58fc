import { toErrorHttpResponse } from '@quantum-chat/core/host';
import type { FastifyReply } from 'fastify';

/**
 * Answers with the core's error envelope for anything thrown (unknown errors are masked as a
 * 500 `internal_error`), so routes outside the chat plugin speak the same error shape.
 *
 * @example
 * return sendError(reply, new QuantumChatError('shutting_down', 'The server is shutting down.'));
 */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const response = toErrorHttpResponse(error);
  return reply.code(response.status).headers(response.headers).send(response.body);
}
