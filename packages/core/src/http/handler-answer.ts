import type { ChatHttpResponse } from '../contract/chat-http-types.js';
import { ClientClosedError, clientClosedStatus } from '../contract/client-connection.js';
import { toErrorHttpResponse } from '../errors/to-error-envelope.js';
import type { ChatHandlerOptions } from './create-chat-handler.js';
import { isStartingStream, type StartingStream, type StreamAnswer } from '../run/run-to-stream.js';

/**
 * How the handler answers one request: every response with its `x-request-id`, every failure
 * as the error envelope (reported when it is a 5xx). An object rather than two closures: a
 * stream waiting for its first token holds it until then.
 */
export class HandlerAnswer implements StreamAnswer {
  readonly requestId: string;
  readonly #options: Pick<ChatHandlerOptions, 'onError'>;

  constructor(requestId: string, options: Pick<ChatHandlerOptions, 'onError'>) {
    this.requestId = requestId;
    this.#options = options;
  }

  /** A response, or a stream still waiting for its first event: answered through its own promise. */
  answered(value: ChatHttpResponse | StartingStream): ChatHttpResponse | Promise<ChatHttpResponse> {
    if (isStartingStream(value)) return value.respond(this);
    // Every response is built for this request, its headers included: set, not copied.
    (value.headers as Record<string, string>)['x-request-id'] = this.requestId;
    return value;
  }

  failed(thrown: unknown): ChatHttpResponse {
    // Its client left: nothing to report and nobody to read an envelope (decisions §5).
    if (thrown instanceof ClientClosedError) return this.answered({ status: clientClosedStatus, headers: {}, body: '' }) as ChatHttpResponse;
    const response = toErrorHttpResponse(thrown);
    if (response.status >= 500) {
      try {
        this.#options.onError?.(thrown, { requestId: this.requestId });
      } catch {
        // Reporting must never alter the response.
      }
    }
    return this.answered(response) as ChatHttpResponse;
  }
}
