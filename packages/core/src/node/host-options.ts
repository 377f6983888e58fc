import type { ChatHandler } from '../contract/chat-http-types.js';
import type { ChatHandlerOptions } from '../http/create-chat-handler.js';

/**
 * The options every Node host adapter takes (`createExpressRouter`, `fastifyQuantumChat`):
 * the handler's options, or an existing handler as `{ handler }` (one handler can serve several
 * hosts; its `maxBodyBytes` and `requestTimeoutMs` apply either way), plus the report of the
 * bridge's own failures.
 *
 * @example
 * const options: HostOptions = { handler: createChatHandler({ engine, accessControl }), onBridgeError: (error) => log.error(error) };
 */
export type HostOptions = (ChatHandlerOptions | { readonly handler: ChatHandler }) & {
  /**
   * Called for failures of the bridge itself, between the host and the handler: a handler that
   * rejects (answered 500 in the envelope) or a stream that fails while it is written (its
   * connection is closed, since it cannot be ended truthfully). A client that left is no
   * failure. The handler reports its own errors through its `onError`. Reporting only.
   */
  onBridgeError?: (error: unknown) => void;
};

