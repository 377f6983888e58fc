import { createResponseEventReader, ResponseAccumulator, ResponseStreamProtocolError, type ResponseObject, type ResponseStreamEvent } from '@quantum-chat/core/dialect';
import { QuantumChatApiError } from '../errors/api-error.js';
import { APIConnectionError, APIResponseValidationError, APIUserAbortError } from '../errors/connection-errors.js';
import { toTransportError, type ApiResponse } from '../http/send-request.js';
import { readResponseObject } from './read-response-object.js';

/**
 * A Responses stream: iterate it for the typed events (`response.created`, the item, part and
 * delta events, `response.completed` …), or await `finalResponse()` for the whole `Response`,
 * built from the events by the core's accumulator. The request starts on the first `next()`
 * (or `finalResponse()`); the stream is consumed once.
 *
 * @example
 * const stream = client.responses.stream({ model: 'quantum-flash', input: 'Hi' });
 * for await (const event of stream) if (event.type === 'response.output_text.delta') process.stdout.write(event.delta);
 * const response = await stream.finalResponse();
 */
export interface ResponseStream extends AsyncIterable<ResponseStreamEvent> {
  /** Reads the stream to its end and resolves to the final `Response` (a `failed` one too); rejects as the stream would. */
  finalResponse(): Promise<ResponseObject>;
  /** Cancels the HTTP request; a pending read rejects with `APIUserAbortError`. */
  abort(): void;
  /** The response as built so far from the events seen. */
  readonly currentResponse: ResponseObject | undefined;
  /** The response's id, once `response.created` has arrived: keep it to `resume`, `retrieve` or `cancel` later. */
  readonly responseId: string | undefined;
  /** The `sequence_number` of the last event handed out: where `resume(id, { startingAfter })` picks up. */
  readonly lastSequenceNumber: number | undefined;
  /** The response headers, once they have arrived. */
  readonly headers: Record<string, string> | undefined;
  /** The server's `x-request-id`, once the headers have arrived. */
  readonly requestId: string | undefined;
}

/**
 * How a stored streamed response is re-opened after its connection dropped:
 * `GET /responses/{id}?stream=true&starting_after=N`. @internal
 */
export interface ResponseStreamResumer {
  open(responseId: string, startingAfter: number | undefined, signal: AbortSignal): Promise<ApiResponse>;
  /** Attempts per drop (each after a backoff); 0: never resume. */
  maxAttempts: number;
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void>;
  /** Reporting only: the caller's `onResume` (`streamId` is the response id). */
  onResume?: ((event: { state: 'reconnecting' | 'resumed'; streamId: string; attempt: number }) => void) | undefined;
}

/** Backoff before resume attempt `attempt` (0-based), as for chat streams: 250 ms, 500 ms, 1 s, ... at most 4 s. */
const resumeDelayMs = (attempt: number) => Math.min(4000, 250 * 2 ** attempt);

const terminalTypes: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Creates the stream over `open`, which sends the request (with retries before the first
 * byte). A stream cut before its terminal event (`response.completed`, `.incomplete` or
 * `.failed`) is re-opened from the last event seen when its response runs on without a reader
 * (`background: true`, or a stream opened with `resume`) and `resumer` is given; otherwise it
 * throws: truncation never looks like success.
 * An `error` event throws its API error.
 *
 * @internal
 */
export function createResponseStream(open: (signal: AbortSignal) => Promise<ApiResponse>, callerSignal?: AbortSignal, resumer?: ResponseStreamResumer, resumed?: { responseId: string; startingAfter: number | undefined }): ResponseStream {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  const accumulator = new ResponseAccumulator();
  let headers: Record<string, string> | undefined;
  let responseId = resumed?.responseId;
  let lastSequence = resumed?.startingAfter;
  let ended = false;
  let failure: { error: unknown } | undefined;
  let iterator: AsyncGenerator<ResponseStreamEvent, void, undefined> | undefined;

  /** The event to hand out, or undefined for a repeat (a resumed stream overlapping what was seen). */
  function take(event: ResponseStreamEvent): ResponseStreamEvent | undefined {
    if (typeof event.sequence_number === 'number') {
      if (lastSequence !== undefined && event.sequence_number <= lastSequence) return undefined;
      lastSequence = event.sequence_number;
    }
    if (event.type === 'error') {
      throw new QuantumChatApiError(event.message, { type: null, code: event.code ?? null, param: event.param ?? null, headers, body: event });
    }
    if (accumulator.snapshot === undefined && resumed?.startingAfter !== undefined) {
      // A replay that starts mid-way has no `response.created`: its events are handed out as
      // they come, and the response is known from the first event that carries it whole
      // (`response.completed` at the latest).
      if (!('response' in event)) return event;
      accumulator.apply({ type: 'response.created', sequence_number: event.sequence_number, response: event.response });
    }
    accumulator.apply(event);
    if (responseId === undefined && 'response' in event) responseId = event.response.id;
    if (terminalTypes.has(event.type)) ended = true;
    return event;
  }

  /** A JSON answer (a server that ignored `stream: true`): its `Response` as the events that bracket it. */
  async function* fromJson(opened: ApiResponse): AsyncGenerator<ResponseStreamEvent, void, undefined> {
    const response = readResponseObject(await opened.response.json(), opened.headers);
    const status = response.status === 'incomplete' || response.status === 'failed' ? response.status : 'completed';
    for (const event of [
      { type: 'response.created', sequence_number: 0, response: { ...response, output: [] } },
      { type: `response.${status}`, sequence_number: 1, response },
    ] as ResponseStreamEvent[]) {
      const taken = take(event);
      if (taken !== undefined) yield taken;
    }
  }

  async function* events(): AsyncGenerator<ResponseStreamEvent, void, undefined> {
    let opened: ApiResponse | undefined;
    let body: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      opened = await open(controller.signal);
      headers = opened.headers;
      for (;;) {
        // The response has started: from here on nothing is retried, and no timeout applies.
        opened.attempt.clearTimeout();
        if ((opened.headers['content-type'] ?? '').includes('application/json')) {
          yield* fromJson(opened);
          return;
        }
        const queue: ResponseStreamEvent[] = [];
        const reader = createResponseEventReader((event) => queue.push(event));
        body = opened.response.body?.getReader();
        let drop: unknown;
        while (body !== undefined) {
          let read: ReadableStreamReadResult<Uint8Array>;
          try {
            read = await body.read();
          } catch (error) {
            drop = error;
            break;
          }
          if (read.done) reader.end();
          else reader.feed(read.value);
          for (const event of queue.splice(0)) {
            const taken = take(event);
            if (taken !== undefined) yield taken;
          }
          if (read.done) {
            body = undefined;
            break;
          }
        }
        if (ended) return;
        const reopened = await resume(opened, body);
        body = undefined;
        if (reopened === undefined) {
          // What the read threw is mapped to the client's errors below.
          if (drop instanceof Error) throw drop;
          throw new APIConnectionError('The stream ended before its response did: the response is incomplete.', { headers });
        }
        opened = reopened;
      }
    } catch (error) {
      const attempt = opened?.attempt;
      const mapped =
        error instanceof ResponseStreamProtocolError
          ? new APIResponseValidationError(error.message, { cause: error, headers })
          : QuantumChatApiError.isInstance(error) || attempt === undefined
            ? error
            : toTransportError(error, attempt);
      failure = { error: mapped };
      throw mapped;
    } finally {
      if (body !== undefined) await body.cancel().catch(() => undefined);
      // A `break` (or `return()`) lands here with the request still open: cancel it.
      if (!ended) controller.abort();
      opened?.attempt.dispose();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * Re-opens the response's stream after the last event seen; undefined when it cannot be
   * (no id yet, no resumer, the caller aborted, every attempt failed). An API error (the
   * response is not kept: 404) is thrown as it is.
   */
  async function resume(previous: ApiResponse, body: ReadableStreamDefaultReader<Uint8Array> | undefined): Promise<ApiResponse | undefined> {
    // Only a background response outlives its reader (decisions §10): a foreground one is
    // stopped when its connection drops, so there is nothing to follow.
    const background = accumulator.snapshot?.background ?? resumed !== undefined;
    if (resumer === undefined || responseId === undefined || !background || controller.signal.aborted) return undefined;
    const id = responseId;
    if (body !== undefined) await body.cancel().catch(() => undefined);
    previous.attempt.dispose();
    const report = (state: 'reconnecting' | 'resumed', attemptNumber: number) => {
      try {
        resumer.onResume?.({ state, streamId: id, attempt: attemptNumber + 1 });
      } catch {
        // A listener's failure must not end the stream.
      }
    };
    for (let attemptNumber = 0; attemptNumber < resumer.maxAttempts; attemptNumber++) {
      report('reconnecting', attemptNumber);
      await resumer.sleep(resumeDelayMs(attemptNumber), controller.signal);
      if (controller.signal.aborted) return undefined;
      try {
        const reopened = await resumer.open(id, lastSequence, controller.signal);
        report('resumed', attemptNumber);
        return reopened;
      } catch (error) {
        if (QuantumChatApiError.isInstance(error) && !(error instanceof APIConnectionError)) throw error;
      }
    }
    return undefined;
  }

  const getIterator = () => (iterator ??= events());

  return {
    [Symbol.asyncIterator]: getIterator,
    async finalResponse() {
      const events = getIterator();
      while (!(await events.next()).done) {
        // Each event is already in the accumulator.
      }
      if (failure !== undefined) throw failure.error;
      if (!ended || accumulator.snapshot === undefined) throw new APIUserAbortError('The stream was stopped before it ended.');
      return accumulator.snapshot;
    },
    abort: () => controller.abort(),
    get currentResponse() {
      return accumulator.snapshot;
    },
    get responseId() {
      return responseId;
    },
    get lastSequenceNumber() {
      return lastSequence;
    },
    get headers() {
      return headers;
    },
    get requestId() {
      return headers?.['x-request-id'];
    },
  };
}
