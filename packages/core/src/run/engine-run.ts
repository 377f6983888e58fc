import { clientClosedError } from '../contract/client-connection.js';
import type { ChatEngineContext, ChatEngineEvent } from '../engine/chat-engine.js';
import type { RunSettings } from './run-settings.js';

/** What an engine gets: its request id, whether its client streams, and its signal, made on first read. */
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
}

/**
 * One engine run, with a signal of its own, aborted by the client's or by a shutdown. The
 * controller is made when the engine first reads `context.signal`: most short requests finish
 * without their engine ever looking, and two `AbortController`s with their listeners were a
 * tenth of a JSON request's CPU time. Classes, not object literals with getters: those get a
 * hidden class each (see `createNodeChatRequest`).
 */
export class EngineRun {
  readonly iterator: AsyncIterator<ChatEngineEvent>;
  readonly #settings: RunSettings;
  #controller: AbortController | undefined = undefined;
  #unwatchClient: (() => void) | undefined = undefined;
  #finished = false;
  #stopped = false;
  #stopReason: unknown = undefined;
  #onShutdown: (() => void) | undefined = undefined;

  /** `stream`: whether the client reads the events as they come (false: it waits for the whole answer). */
  constructor(settings: RunSettings, stream: boolean) {
    this.#settings = settings;
    this.iterator = settings.engine.generate(settings.request, new EngineContext(settings.requestId, stream, this))[Symbol.asyncIterator]();
  }

  #endedReason(): unknown {
    return this.#stopReason ?? new Error('The response ended.');
  }

  signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#stopped) {
      if (!this.#finished) controller.abort(this.#endedReason());
      return controller.signal;
    }
    const { shutdownSignal } = this.#settings;
    if (shutdownSignal?.aborted) controller.abort(shutdownSignal.reason);
    else if (shutdownSignal !== undefined) {
      this.#onShutdown = () => controller.abort(shutdownSignal.reason);
      shutdownSignal.addEventListener('abort', this.#onShutdown, { once: true });
    }
    // Bound, not an arrow: made only for an engine that reads its signal, and without a context object.
    if (!controller.signal.aborted) this.#unwatchClient = this.#settings.client.onClose(this.#clientGone.bind(this));
    return controller.signal;
  }

  #clientGone(): void {
    this.#controller!.abort(clientClosedError());
  }

  /** Ends the engine (once): `return()` on its iterator, and an abort unless it finished its answer. */
  stop(reason?: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stopReason = reason;
    const controller = this.#controller;
    if (controller !== undefined) {
      this.#unwatchClient?.();
      if (this.#onShutdown !== undefined) this.#settings.shutdownSignal?.removeEventListener('abort', this.#onShutdown);
      // An engine that yielded its finish event has nothing left to stop. Aborting it anyway cost
      // a short request more than the rest of its bookkeeping (an Error with a captured stack,
      // then an abort event): about a fifth of the handler's CPU time on the JSON path.
      if (!this.#finished && !controller.signal.aborted) controller.abort(this.#endedReason());
    }
    // Errors from an engine's cleanup must not mask how the request ended.
    void Promise.resolve(this.iterator.return?.()).catch(() => undefined);
  }

  /** The engine yielded its finish event: `stop` then only returns its iterator. */
  markFinished(): void {
    this.#finished = true;
  }
}
