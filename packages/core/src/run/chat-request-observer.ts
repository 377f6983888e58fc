import type { Principal } from '../auth/access-control.js';
import type { ChatHttpRequest, ClientConnection } from '../contract/chat-http-types.js';
import { ClientClosedError, clientClosedStatus } from '../contract/client-connection.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';

/** What the handler reports of each chat request, once, however it ended. */
export interface ChatRequestRecord {
  requestId: string;
  /** Which API the request came through. */
  api: 'chat.completions' | 'responses';
  /** Undefined when the request was refused before its key was checked (or the key was refused). */
  principal: Principal | undefined;
  /** The model's id; `''` when the request was refused before a known model was named. */
  model: string;
  status: number;
  /** Whether the request asked for a stream (`false` when its body could not be read). */
  stream: boolean;
  promptTokens: number;
  /** All generated tokens, reasoning included (as in `usage.completion_tokens`). */
  completionTokens: number;
  /** The part of `completionTokens` spent on reasoning. */
  reasoningTokens: number;
  /** How the engine finished, as sent on the wire; undefined when it did not finish. */
  finishReason: 'stop' | 'length' | 'tool_calls' | undefined;
  interrupted: boolean;
  /**
   * Milliseconds from the handler receiving the request to its settlement: the error for a
   * refused request, the engine's finish for an answer, the last frame handed to the host's
   * writer (or the client leaving) for a stream.
   */
  durationMs: number;
  /** Streams only: milliseconds until the first token's frame was handed to the host's writer. */
  timeToFirstTokenMs: number | undefined;
}

/**
 * Watches one chat request, for metrics and traces. Every member is optional; all are reporting
 * only: what they return (but `run`'s) or throw never alters the response.
 */
export interface ChatRequestObserver {
  /**
   * Runs the rest of the request (its checks and the engine's start) and returns what `work`
   * returns. A tracer runs it inside its span's context, so that an engine's outgoing calls
   * join the trace. Must call `work` once, synchronously.
   */
  run?<T>(work: () => T): T;
  /** A stream passed every check and its engine produced a first event: 200 and SSE headers follow. */
  onStreamStart?(): void;
  /** Called once with how the request ended (also for a request refused before its engine ran). */
  onSettled?(record: ChatRequestRecord): void;
}

/** What an observer is told as a chat request arrives. */
export interface ChatRequestStart {
  requestId: string;
  headers: ChatHttpRequest['headers'];
}

/** A monotonic clock in milliseconds where the runtime has one (every supported runtime does). */
const clock: () => number = typeof performance === 'object' && typeof performance.now === 'function' ? () => performance.now() : Date.now;

/** How a request got as far as it did, filled in as the handler learns it. @internal */
export class ChatRequestWatch {
  readonly #requestId: string;
  readonly #observer: ChatRequestObserver | undefined;
  readonly #onSettled: ((record: ChatRequestRecord) => void) | undefined;
  readonly #startedAt = clock();
  #firstTokenAt: number | undefined = undefined;
  #settled = false;
  principal: Principal | undefined = undefined;
  model = '';
  stream = false;
  readonly #api: ChatRequestRecord['api'];

  constructor(
    requestId: string,
    observer: ChatRequestObserver | undefined,
    onSettled: ((record: ChatRequestRecord) => void) | undefined,
    api: ChatRequestRecord['api'] = 'chat.completions',
  ) {
    this.#requestId = requestId;
    this.#api = api;
    this.#observer = observer;
    this.#onSettled = onSettled;
  }

  run<T>(work: () => T): T {
    const observer = this.#observer;
    return observer?.run === undefined ? work() : observer.run(work);
  }

  streamStarted(): void {
    report(() => this.#observer?.onStreamStart?.());
  }

  /** The first frame carrying a token went to the host's writer. */
  firstToken(): void {
    this.#firstTokenAt ??= clock();
  }

  get settled(): boolean {
    return this.#settled;
  }

  settle(outcome: Pick<ChatRequestRecord, 'status' | 'promptTokens' | 'completionTokens' | 'reasoningTokens' | 'finishReason' | 'interrupted'>): void {
    if (this.#settled) return;
    this.#settled = true;
    const now = clock();
    const record: ChatRequestRecord = {
      requestId: this.#requestId,
      api: this.#api,
      principal: this.principal,
      model: this.model,
      status: outcome.status,
      stream: this.stream,
      promptTokens: outcome.promptTokens,
      completionTokens: outcome.completionTokens,
      reasoningTokens: outcome.reasoningTokens,
      finishReason: outcome.finishReason,
      interrupted: outcome.interrupted,
      durationMs: now - this.#startedAt,
      timeToFirstTokenMs: this.#firstTokenAt === undefined ? undefined : this.#firstTokenAt - this.#startedAt,
    };
    report(() => this.#observer?.onSettled?.(record));
    report(() => this.#onSettled?.(record));
  }

  /**
   * A request whose work failed: settled here if nothing settled it yet (refused before its
   * engine ran). Returns what the handler answers: a `ClientClosedError` when the client left,
   * unless our own request timeout closed the connection.
   */
  failed(thrown: unknown, connection: ClientConnection): unknown {
    const timedOut = QuantumChatError.isInstance(thrown) && thrown.code === 'request_timeout';
    const left = connection.closed && !timedOut;
    if (!this.#settled) this.refuse(left ? clientClosedStatus : QuantumChatError.isInstance(thrown) ? thrown.status : 500);
    return left && !(thrown instanceof ClientClosedError) ? new ClientClosedError(thrown) : thrown;
  }

  /** A request refused before its engine ran (or whose failure nothing settled yet). */
  refuse(status: number): void {
    this.settle({ status, promptTokens: 0, completionTokens: 0, reasoningTokens: 0, finishReason: undefined, interrupted: false });
  }
}

function report(call: () => void): void {
  try {
    call();
  } catch {
    // Reporting must never alter the response.
  }
}
