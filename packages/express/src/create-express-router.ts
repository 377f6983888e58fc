// Adapter authors: this file only converts between Express and the core. Routing, body
// rules, validation, errors and SSE framing live in @quantum-chat/core (createChatHandler).
import { createChatHandler, type ChatHandler } from '@quantum-chat/core';
import { bodyRejectionError, readChatRequest, resolveRequestId, toErrorHttpResponse, writeChatResponse, type HostOptions } from '@quantum-chat/core/node';
import { Router, type ErrorRequestHandler, type Request } from 'express';

/** @deprecated Use `HostOptions` from `@quantum-chat/core/node`: every host takes the same options. */
export type ExpressRouterOptions = HostOptions;

/**
 * A body an earlier `express.json()` already read. Express 4's parser marks it with `_body`
 * (and sets `{}` when it skipped); Express 5's leaves the request stream ended.
 */
function parsedBodyOf(req: Request): unknown {
  const consumed = (req as { _body?: boolean })._body === true || req.readableEnded;
  return consumed && req.body !== undefined ? req.body : undefined;
}

/**
 * An Express router serving the Quantum chat API below wherever it is mounted. Takes the
 * `HostOptions` every host takes: the handler's options, or `{ handler }`, plus `onBridgeError`.
 *
 * @example
 * app.use('/v1', createExpressRouter({ engine: createReferenceEngine(), accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]) }));
 */
export function createExpressRouter(options: HostOptions): Router;
/** @deprecated Pass `{ handler }`: every host takes the same options. */
export function createExpressRouter(handler: ChatHandler): Router;
export function createExpressRouter(optionsOrHandler: HostOptions | ChatHandler): Router {
  // A bare handler, the older shape, is read as `{ handler }`.
  const options: HostOptions = 'handle' in optionsOrHandler ? { handler: optionsOrHandler } : optionsOrHandler;
  const handler = 'handler' in options ? options.handler : createChatHandler(options);
  const { onBridgeError } = options;
  const router = Router();
  router.use(async (req, res) => {
    try {
      const request = await readChatRequest(req, res, { path: req.path, basePath: req.baseUrl, parsedBody: parsedBodyOf(req) });
      await writeChatResponse(res, await handler.handle(request));
    } catch (error) {
      onBridgeError?.(error);
      if (!res.headersSent) await writeChatResponse(res, toErrorHttpResponse(error));
      else if (!res.writableEnded) res.end();
    }
  });
  return router;
}

const bodyParserErrors: Record<string, 'invalid-json' | 'too-large' | 'unreadable'> = {
  'entity.parse.failed': 'invalid-json',
  'entity.too.large': 'too-large',
  'encoding.unsupported': 'unreadable',
  'charset.unsupported': 'unreadable',
};

/**
 * Turns errors of a host's own body parsers (`express.json()` mounted before the router) into
 * our envelope. Express only passes errors to four-argument middleware, so mount it after
 * the router: `app.use(quantumChatErrorHandler)`.
 */
export const quantumChatErrorHandler: ErrorRequestHandler = (error, req, res, next) => {
  const reason = bodyParserErrors[(error as { type?: string })?.type ?? ''];
  if (reason === undefined || res.headersSent) return next(error);
  const response = toErrorHttpResponse(bodyRejectionError(reason, (error as { limit?: number }).limit));
  const headers = { ...response.headers, 'x-request-id': resolveRequestId(req.headers) };
  writeChatResponse(res, { ...response, headers }).catch(next);
};
