import { QuantumChatApiError } from '../errors/api-error.js';
import { APIConnectionError, APIUserAbortError } from '../errors/connection-errors.js';
import type { ApiResponse } from '../http/send-request.js';
import { toTransportError } from '../http/send-request.js';
import type { ChatStreamEvent } from './chat-stream-event.js';
import type { CollectedCompletion } from './collected-completion.js';
import { completionToEvents } from './completion-to-events.js';
import { createChunkReader } from './create-chunk-reader.js';
import { createCompletionCollector } from './create-completion-collector.js';
import { readSseEvents } from './read-sse-events.js';

/**
 * A chat completion stream: iterate it for typed events, or `collect()` it into the final
 * message. The request starts on the first `next()` (or `collect()`). It can be consumed
 * once; `collect()` after a partial loop gathers the rest, and includes what was already seen.
 *
 * @example
 * const stream = client.chat.completions.stream({ model: 'quantum-reasoner', messages });
 * for await (const event of stream) if (event.type === 'content') process.stdout.write(event.text);
 * const { content, reasoning, toolCalls } = await stream.collect();
 */
export interface ChatCompletionStream extends AsyncIterable<ChatStreamEvent> {
  /** Reads the stream to its end and resolves to the whole message; rejects as the stream would. */
  collect(): Promise<CollectedCompletion>;
  /** The same as {@link collect}, under the `openai` SDK's name. */
  finalMessage(): Promise<CollectedCompletion>;
  /** Cancels the HTTP request; a pending read rejects with `APIUserAbortError`. */
  abort(): void;
  /** The response headers, once they have arrived. */
  readonly headers: Record<string, string> | undefined;
  /** The server's `x-request-id`, once the headers have arrived. */
  readonly requestId: string | undefined;
}

type State = 'idle' | 'running' | 'completed' | 'failed' | 'aborted';

/**
 * Creates the stream over `open`, which sends the request (with retries before the first
 * byte) under the given signal. A stream that ends without `[DONE]`, or with an error event,
 * throws: truncation never looks like success.
 *
 * @internal
 */
export function createChatCompletionStream(open: (signal: AbortSignal) => Promise<ApiResponse>, callerSignal?: AbortSignal): ChatCompletionStream {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  const collector = createCompletionCollector();
  let meta: { id: string | undefined; model: string | undefined } = { id: undefined, model: undefined };
  let headers: Record<string, string> | undefined;
  let state: State = 'idle';
  let failure: unknown;
  let generator: AsyncGenerator<ChatStreamEvent, void, undefined> | undefined;

  async function* run(): AsyncGenerator<ChatStreamEvent, void, undefined> {
    state = 'running';
    let attempt: ApiResponse['attempt'] | undefined;
    try {
      const opened = await open(controller.signal);
      attempt = opened.attempt;
      headers = opened.headers;
      // The response has started: from here on nothing is retried, and no timeout applies.
      attempt.clearTimeout();
      if ((headers['content-type'] ?? '').includes('application/json')) {
        // A server that ignored `stream: true` (or answered an error with 200): read it whole.
        const events = completionToEvents(await opened.response.json(), headers);
        meta = events.meta;
        for (const event of events.events) {
          collector.add(event);
          yield event;
        }
        state = 'completed';
        return;
      }
      const reader = createChunkReader(headers);
      // After `[DONE]` the body is still read to its end (our server ends it at once), as the
      // openai SDK does: cancelling it instead would close a connection that could be reused.
      for await (const sseEvent of readSseEvents(opened.response.body)) {
        for (const event of reader.read(sseEvent)) {
          collector.add(event);
          yield event;
        }
      }
      meta = { id: reader.id, model: reader.model };
      if (!reader.done) throw new APIConnectionError('The stream ended before `data: [DONE]`: the response is incomplete.', { headers });
      state = 'completed';
    } catch (error) {
      state = 'failed';
      failure = QuantumChatApiError.isInstance(error) ? error : attempt === undefined ? error : toTransportError(error, attempt);
      throw failure;
    } finally {
      // A `break` (or `return()`) lands here with the request still open: cancel it.
      if (state === 'running') {
        state = 'aborted';
        controller.abort();
      }
      if (state !== 'completed') attempt?.abort();
      attempt?.dispose();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  function iterator(): AsyncGenerator<ChatStreamEvent, void, undefined> {
    generator ??= run();
    return generator;
  }

  async function collect(): Promise<CollectedCompletion> {
    if (state === 'idle' || state === 'running') {
      const events = iterator();
      while (!(await events.next()).done) {
        // Each event is already in the collector.
      }
    }
    if (state === 'failed') throw failure;
    if (state === 'aborted') throw new APIUserAbortError('The stream was stopped before it ended.');
    return collector.result(meta);
  }

  return {
    [Symbol.asyncIterator]: iterator,
    collect,
    finalMessage: collect,
    abort: () => controller.abort(),
    get headers() {
      return headers;
    },
    get requestId() {
      return headers?.['x-request-id'];
    },
  };
}
