import { clientClosedError } from '../contract/client-connection.js';
import type { ChatEngineContext, ChatEngineEvent } from '../engine/chat-engine.js';
import type { RunSettings } from './run-settings.js';

/** What an engine gets: its request id, whether its client streams, and its abort, watched on first use. */
class EngineContext implements ChatEngineContext {
  readonly requestId: string;
  readonly stream: boolean;
  readonly #run: EngineRun;
  constructor(requestId: string, stream: boolean, run: EngineRun) {
    this.requestId = requestId;
    this.stream = stream;
    this.#run = run;
  }
  get signal(): AbortSignal {
    return this.#run.signal();
  }
  get aborted(): boolean {
    return this.#run.aborted;
  }
  onAbort(listener: () => void): void {
    this.#run.onAbort(listener);
  }
  offAbort(listener: () => void): void {
    this.#run.offAbort(listener);
  }
}

/**
 * One engine run, aborted by its client leaving, by a shutdown, or by a stop before its finish.
 * What aborts it is watched only once the engine asks (`signal`, `onAbort`), and the
 * `AbortController` is made only for `signal`: most short requests finish without their engine
 * ever looking, and two `AbortController`s with their listeners were a tenth of a JSON
 * request's CPU time. Classes, not object literals with getters: those get a hidden class each
 * (see `createNodeChatRequest`).
 */
export class EngineRun {
  readonly iterator: AsyncIterator<ChatEngineEvent>;
  readonly #settings: RunSettings;
  #controller: AbortController | undefined = undefined;
  #abortListeners: (() => void)[] | undefined = undefined;
  #watching = false;
  #aborted = false;
  #abortReason: unknown = undefined;
  #unwatchClient: (() => void) | undefined = undefined;
  #onShutdown: (() => void) | undefined = undefined;
  #finished = false;
  #stopped = false;
  #stopReason: unknown = undefined;

  /** `stream`: whether the client reads the events as they come (false: it waits for the whole answer). */
  constructor(settings: RunSettings, stream: boolean) {
    this.#settings = settings;
    this.iterator = settings.engine.generate(settings.request, new EngineContext(settings.requestId, stream, this))[Symbol.asyncIterator]();
  }

  #endedReason(): unknown {
    return this.#stopReason ?? new Error('The response ended.');
  }

  /** Whether the run is aborted, or will be as soon as anything watches it. */
  get aborted(): boolean {
    if (this.#aborted) return true;
    if (this.#stopped) return !this.#finished;
    return this.#settings.client.closed || this.#settings.shutdownSignal?.aborted === true;
  }

  signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#aborted) controller.abort(this.#abortReason);
    else this.#watch();
    return controller.signal;
  }

  /** Calls `listener` once when the run is aborted (at once if it is). */
  onAbort(listener: () => void): void {
    if (this.#aborted) {
      listener();
      return;
    }
    (this.#abortListeners ??= []).push(listener);
    this.#watch();
  }

  offAbort(listener: () => void): void {
    const listeners = this.#abortListeners;
    const index = listeners?.indexOf(listener) ?? -1;
    if (index !== -1) listeners!.splice(index, 1);
  }

  /** Starts watching what aborts the run (once). */
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    if (this.#stopped) {
      if (!this.#finished) this.#abort(this.#endedReason());
      return;
    }
    const { shutdownSignal } = this.#settings;
    if (shutdownSignal?.aborted) {
      this.#abort(shutdownSignal.reason);
      return;
    }
    if (shutdownSignal !== undefined) {
      this.#onShutdown = this.#shutdown.bind(this);
      shutdownSignal.addEventListener('abort', this.#onShutdown, { once: true });
    }
    // Bound, not an arrow: made only for an engine that watches its abort, and without a context object.
    this.#unwatchClient = this.#settings.client.onClose(this.#clientGone.bind(this));
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#abortListeners;
    this.#abortListeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }

  #clientGone(): void {
    this.#abort(clientClosedError());
  }

  #shutdown(): void {
    this.#abort(this.#settings.shutdownSignal!.reason);
  }

  /** Ends the engine (once): `return()` on its iterator, and an abort unless it finished its answer. */
  stop(reason?: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stopReason = reason;
    if (this.#watching) {
      this.#unwatchClient?.();
      if (this.#onShutdown !== undefined) this.#settings.shutdownSignal?.removeEventListener('abort', this.#onShutdown);
      // An engine that yielded its finish event has nothing left to stop. Aborting it anyway cost
      // a short request more than the rest of its bookkeeping (an Error with a captured stack,
      // then an abort event): about a fifth of the handler's CPU time on the JSON path.
      if (!this.#finished && !this.#aborted) this.#abort(this.#endedReason());
    }
    // Errors from an engine's cleanup must not mask how the request ended.
    void Promise.resolve(this.iterator.return?.()).catch(() => undefined);
  }

  /** The engine yielded its finish event: `stop` then only returns its iterator. */
  markFinished(): void {
    this.#finished = true;
  }
}
