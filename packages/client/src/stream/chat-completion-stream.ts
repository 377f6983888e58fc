import { createSseDecoder, type SseDecoder, type SseEvent } from '@quantum-chat/core/sse';
import { QuantumChatApiError } from '../errors/api-error.js';
import { APIConnectionError, APIUserAbortError } from '../errors/connection-errors.js';
import type { ApiResponse } from '../http/send-request.js';
import { toTransportError } from '../http/send-request.js';
import type { ChatStreamEvent } from './chat-stream-event.js';
import type { CollectedCompletion } from './collected-completion.js';
import { completionToEvents } from './completion-to-events.js';
import { createChunkReader, type ChunkReader } from './create-chunk-reader.js';
import { createCompletionCollector } from './create-completion-collector.js';

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
  /** A resumable stream's id (`x-quantum-stream-id`), once the headers have arrived: keep it to `resume` or `cancel` later. */
  readonly streamId: string | undefined;
}

/**
 * How a resumable stream is re-opened after its connection dropped: `open` sends
 * `GET …/chat/completions/{id}/stream` with `Last-Event-ID`. @internal
 */
export interface StreamResumer {
  open(streamId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<ApiResponse>;
  /** Attempts per drop (each after a backoff); 0: never resume. */
  maxAttempts: number;
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void>;
  /** Reporting only: the caller's `onResume`. */
  onResume?: ((event: { state: 'reconnecting' | 'resumed'; streamId: string; attempt: number }) => void) | undefined;
}

/** Backoff before resume attempt `attempt` (0-based): 250 ms, 500 ms, 1 s, ... at most 4 s. */
const resumeDelayMs = (attempt: number) => Math.min(4000, 250 * 2 ** attempt);

type State = 'idle' | 'running' | 'completed' | 'failed' | 'aborted';

type Step = IteratorResult<ChatStreamEvent, void>;

const finished = (): Step => ({ value: undefined, done: true });

/**
 * Creates the stream over `open`, which sends the request (with retries before the first
 * byte) under the given signal. A stream that ends without `[DONE]`, or with an error event,
 * throws: truncation never looks like success.
 *
 * The iterator is written by hand, not as async generators: the events of one network read
 * are decoded synchronously into a batch, and each `next()` hands out the next one from it,
 * so there is one await per read rather than two generator resumptions per event. It behaves
 * as the async generator it replaces: calls are queued, `return()` (a `break`) cancels the
 * request, an error is thrown once, after the events decoded before it, and a finished
 * iterator answers `done`.
 *
 * @internal
 */
export function createChatCompletionStream(open: (signal: AbortSignal) => Promise<ApiResponse>, callerSignal?: AbortSignal, resumer?: StreamResumer, resumedAfter?: string): ChatCompletionStream {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  const collector = createCompletionCollector();
  let meta: { id: string | undefined; model: string | undefined } = { id: undefined, model: undefined };
  let headers: Record<string, string> | undefined;
  let state: State = 'idle';
  let failure: unknown;

  /** The iterator has ended (or was closed before it started): `next()` answers `done`. */
  let closed = false;
  /** The `next()`, `return()` or `throw()` in progress; later calls wait for it, in order. */
  let busy: Promise<Step> | undefined;
  let attempt: ApiResponse['attempt'] | undefined;
  let body: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The body has been read to its end (or there was none to read). */
  let bodyDone = false;
  let chunkReader: ChunkReader | undefined;
  let sseDecoder: SseDecoder | undefined;
  /** The events decoded from the last read, handed out from `position`. */
  const batch: ChatStreamEvent[] = [];
  let position = 0;
  /** What the last read's events threw: thrown once the events before it are handed out. */
  let pendingError: { error: unknown } | undefined;
  /** The id of the last whole frame decoded: where a resume starts. */
  let lastEventId: string | undefined = resumedAfter;

  function onSseEvent(event: SseEvent): void {
    if (pendingError !== undefined) return;
    if (event.id !== undefined) lastEventId = event.id;
    try {
      chunkReader!.read(event, batch);
    } catch (error) {
      pendingError = { error };
    }
  }

  async function start(): Promise<void> {
    state = 'running';
    const opened = await open(controller.signal);
    attempt = opened.attempt;
    headers = opened.headers;
    // The response has started: from here on nothing is retried, and no timeout applies.
    attempt.clearTimeout();
    if ((headers['content-type'] ?? '').includes('application/json')) {
      // A server that ignored `stream: true` (or answered an error with 200): read it whole.
      bodyDone = true;
      const events = completionToEvents(await opened.response.json(), headers);
      meta = events.meta;
      for (const event of events.events) batch.push(event);
      return;
    }
    chunkReader = createChunkReader(headers);
    // After `[DONE]` the body is still read to its end (our server ends it at once), as the
    // openai SDK does: cancelling it instead would close a connection that could be reused.
    // An incomplete trailing event is dropped, as WHATWG requires.
    sseDecoder = createSseDecoder({ onEvent: onSseEvent });
    const responseBody = opened.response.body;
    if (responseBody === null) bodyDone = true;
    else body = responseBody.getReader();
  }

  /** Reads until there are events to hand out, or the stream ends. */
  async function pull(): Promise<Step> {
    try {
      if (state === 'idle') await start();
      for (;;) {
        if (position < batch.length) return deliver();
        if (pendingError !== undefined) throw pendingError.error;
        if (bodyDone) break;
        batch.length = 0;
        position = 0;
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await body!.read();
        } catch (error) {
          if (await resume()) continue;
          throw error;
        }
        const { done, value } = read;
        if (done) {
          // Cut before `[DONE]` (a proxy, a network change): a resumable stream picks up where it was.
          if (chunkReader !== undefined && !chunkReader.done() && (await resume())) continue;
          bodyDone = true;
          sseDecoder!.end();
        } else {
          sseDecoder!.feed(value);
        }
      }
      if (chunkReader !== undefined) {
        meta = { id: chunkReader.id(), model: chunkReader.model() };
        if (!chunkReader.done()) throw new APIConnectionError('The stream ended before `data: [DONE]`: the response is incomplete.', { headers });
      }
      state = 'completed';
    } catch (error) {
      await releaseBody();
      state = 'failed';
      failure = QuantumChatApiError.isInstance(error) ? error : attempt === undefined ? error : toTransportError(error, attempt);
      await finish();
      throw failure;
    }
    await finish();
    return finished();
  }

  /**
   * Re-opens a resumable stream after its connection dropped, from the last whole frame
   * (`Last-Event-ID`): the partial frame is dropped with the old decoder, so the caller sees
   * no gap and no repeat. False when the stream is not resumable, the caller aborted, or
   * every attempt failed; an API error (the stream expired: 404) is thrown as it is.
   */
  async function resume(): Promise<boolean> {
    const streamId = headers?.['x-quantum-stream-id'];
    if (resumer === undefined || streamId === undefined || controller.signal.aborted || pendingError !== undefined) return false;
    await releaseBody();
    attempt?.dispose();
    const report = (state: 'reconnecting' | 'resumed', attemptNumber: number) => {
      try {
        resumer.onResume?.({ state, streamId, attempt: attemptNumber + 1 });
      } catch {
        // A listener's failure must not end the stream.
      }
    };
    for (let attemptNumber = 0; attemptNumber < resumer.maxAttempts; attemptNumber++) {
      report('reconnecting', attemptNumber);
      await resumer.sleep(resumeDelayMs(attemptNumber), controller.signal);
      if (controller.signal.aborted) return false;
      try {
        const reopened = await resumer.open(streamId, lastEventId, controller.signal);
        attempt = reopened.attempt;
        attempt.clearTimeout();
        sseDecoder = createSseDecoder({ onEvent: onSseEvent });
        const responseBody = reopened.response.body;
        if (responseBody === null) return false;
        body = responseBody.getReader();
        bodyDone = false;
        report('resumed', attemptNumber);
        return true;
      } catch (error) {
        if (QuantumChatApiError.isInstance(error) && !(error instanceof APIConnectionError)) throw error;
      }
    }
    return false;
  }

  function deliver(): Step {
    const event = batch[position++]!;
    collector.add(event);
    return { value: event, done: false };
  }

  /** Cancels the body unless it was read to its end (which closes the connection), and lets it go. */
  async function releaseBody(): Promise<void> {
    const reader = body;
    if (reader === undefined) return;
    body = undefined;
    if (!bodyDone) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }

  async function finish(): Promise<void> {
    closed = true;
    await releaseBody();
    // A `break` (or `return()`) lands here with the request still open: cancel it.
    if (state === 'running') {
      state = 'aborted';
      controller.abort();
    }
    if (state !== 'completed') attempt?.abort();
    attempt?.dispose();
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }

  function track(step: Promise<Step>): Promise<Step> {
    busy = step;
    const settle = () => {
      if (busy === step) busy = undefined;
    };
    step.then(settle, settle);
    return step;
  }

  function next(): Promise<Step> {
    if (busy !== undefined) return busy.then(next, next);
    if (position < batch.length) return Promise.resolve(deliver());
    if (closed) return Promise.resolve(finished());
    return track(pull());
  }

  function stop(): Promise<Step> {
    if (busy !== undefined) return busy.then(stop, stop);
    if (closed || state === 'idle') {
      closed = true;
      return Promise.resolve(finished());
    }
    return track(finish().then(finished));
  }

  function raise(error: unknown): Promise<Step> {
    const raiseAgain = () => raise(error);
    if (busy !== undefined) return busy.then(raiseAgain, raiseAgain);
    if (closed || state === 'idle') {
      closed = true;
      return Promise.reject(error);
    }
    return track(
      (async () => {
        await releaseBody();
        state = 'failed';
        failure = QuantumChatApiError.isInstance(error) ? error : attempt === undefined ? error : toTransportError(error, attempt);
        await finish();
        throw failure;
      })(),
    );
  }

  const iterator: AsyncIterableIterator<ChatStreamEvent> & AsyncGenerator<ChatStreamEvent, void, undefined> = Object.assign(Object.create(asyncIteratorPrototype) as object, {
    next,
    return: stop,
    throw: raise,
  }) as AsyncIterableIterator<ChatStreamEvent> & AsyncGenerator<ChatStreamEvent, void, undefined>;

  async function collect(): Promise<CollectedCompletion> {
    if (state === 'idle' || state === 'running') {
      while (!(await next()).done) {
        // Each event is already in the collector.
      }
    }
    if (state === 'failed') throw failure;
    if (state === 'aborted') throw new APIUserAbortError('The stream was stopped before it ended.');
    return collector.result(meta);
  }

  return {
    [Symbol.asyncIterator]: () => iterator,
    collect,
    finalMessage: collect,
    abort: () => controller.abort(),
    get headers() {
      return headers;
    },
    get requestId() {
      return headers?.['x-request-id'];
    },
    get streamId() {
      return headers?.['x-quantum-stream-id'];
    },
  };
}

/** `%AsyncIteratorPrototype%`: gives the iterator `[Symbol.asyncIterator]` (and whatever else the runtime adds). */
const asyncIteratorPrototype: object = Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()) as object) as object) as object;
