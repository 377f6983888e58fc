import type { AdmissionOutcome, AdmissionProgress } from '../auth/access-control.js';
import type { ChatEngine, ChatEngineContext, ChatEngineEvent, ChatEngineRequest, EngineUsage } from '../engine/chat-engine.js';
import { measurePromptOf, type MeasuredPrompt } from '../engine/measured-prompt.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import { toErrorEnvelope } from '../errors/to-error-envelope.js';
import type { GenerateId } from '../ids.js';
import type { TokenLogprob } from '../schemas/logprobs.js';
import type { ToolCall } from '../schemas/tool-call.js';
import { encodeCompletionBody } from './completion-body.js';
import type { ClientConnection } from './chat-http-types.js';
import { ClientClosedError, clientClosedError, clientClosedStatus } from './client-connection.js';
import { FrameStream } from './frame-stream.js';
import { createStreamFrameEncoder, type StreamFormat } from './stream-frame-encoder.js';
import { createToolCallIndexer } from './tool-call-indexer.js';
import { toWireUsage } from './wire-usage.js';

export interface RunSettings {
  engine: ChatEngine;
  request: ChatEngineRequest;
  /** The prompt as measured for the admission (its count remembered); measured when first needed otherwise. */
  prompt?: MeasuredPrompt | undefined;
  requestId: string;
  /**
   * The client's connection: watched only when needed (an engine reads its signal, or a
   * stream starts); the engine gets a signal of its own, aborted when the client goes or by
   * an early stop.
   */
  client: ClientConnection;
  /** Aborted when the server shuts down: open requests end with a `shutting_down` error. */
  shutdownSignal?: AbortSignal | undefined;
  generateId: GenerateId;
  /** The stream's completion id when drawn before the run (a resumable stream's id is its header); drawn at its start otherwise. */
  completionId?: string | undefined;
  createdSeconds: number;
  streamFormat: StreamFormat;
  includeUsage: boolean;
  keepAliveIntervalMs: number;
  /**
   * How long a stream may leave a frame unread, the consumer not pulling the next one (the
   * socket is full because the client stopped reading), before the core gives up on it.
   * 0 or less: never.
   */
  stallTimeoutMs?: number;
  /**
   * Called once with how the request ended, to settle quota and log. A promise: the answer is
   * acknowledged only once it resolves (a durable usage row); for a finished request the last
   * bytes wait for it, and its rejection fails the answer.
   */
  onSettled(outcome: RunOutcome): void | Promise<void>;
  /** Given, once the engine starts, a reader of the tokens produced so far (see `Admission.track`). */
  track?: ((read: () => AdmissionProgress) => void) | undefined;
  /** A stream's engine produced its first event: its frames follow. */
  onStreamStart?: (() => void) | undefined;
  /** A stream's first token frame was handed to the host's writer. */
  onFirstToken?: (() => void) | undefined;
}

/** How a run ended: what settles the admission, and what observers are told besides. */
export interface RunOutcome extends AdmissionOutcome {
  /** The part of `completionTokens` spent on reasoning. */
  reasoningTokens: number;
  /** As sent on the wire; undefined when the engine did not finish. */
  finishReason: 'stop' | 'length' | 'tool_calls' | undefined;
}

const keepAliveFrame = ': keep-alive\n\n';

/**
 * Tracks what an engine produced, so an interrupted request settles to real usage. Reasoning,
 * answer and tool calls are counted apart, as engines count them. A class: a waiting stream
 * holds one object, not three closures and their context.
 */
class Progress {
  readonly #engine: ChatEngine;
  readonly #request: ChatEngineRequest;
  #prompt: MeasuredPrompt | undefined;
  #reasoning = '';
  #content = '';
  #tools = '';
  #usage: EngineUsage | undefined = undefined;
  #finish: RunOutcome['finishReason'] = undefined;

  constructor(engine: ChatEngine, request: ChatEngineRequest, prompt: MeasuredPrompt | undefined) {
    this.#engine = engine;
    this.#request = request;
    this.#prompt = prompt;
  }

  observe(event: ChatEngineEvent): void {
    if (event.type === 'finish') {
      this.#usage = event.usage;
      this.#finish = event.reason === 'stop' && this.#tools !== '' ? 'tool_calls' : event.reason;
    } else if (event.type === 'tool-call') this.#tools += (event.name ?? '') + event.argumentsDelta;
    else if (event.type === 'reasoning') this.#reasoning += event.text;
    else this.#content += event.text;
  }

  outcome(status: number, interrupted: boolean): RunOutcome {
    const usage = this.#usage;
    const finishReason = this.#finish;
    if (usage !== undefined) {
      const { promptTokens, completionTokens, reasoningTokens, cachedPromptTokens } = usage;
      if (cachedPromptTokens !== undefined) return { promptTokens, completionTokens, reasoningTokens, cachedPromptTokens, finishReason, status, interrupted };
      return { promptTokens, completionTokens, reasoningTokens, finishReason, status, interrupted };
    }
    const promptTokens = (this.#prompt ??= measurePromptOf(this.#engine, this.#request)).tokensNow();
    const reasoningTokens = this.#count(this.#reasoning);
    const completionTokens = reasoningTokens + this.#count(this.#content) + this.#count(this.#tools);
    return { promptTokens, completionTokens, reasoningTokens, finishReason, status, interrupted };
  }

  #count(text: string): number {
    return text === '' ? 0 : this.#engine.countTokens?.(text) ?? Math.ceil(text.length / 4);
  }
}

function engineEndedEarly(): QuantumChatError {
  return new QuantumChatError('upstream_error', 'The model stopped without finishing its answer.');
}

/**
 * The status a failed run is settled with: `client_closed` (499) when the client had left
 * (whatever its aborted engine threw), else the error's (500 for an unknown one).
 */
function failureStatus(settings: RunSettings, error: unknown): number {
  if (settings.client.closed) return clientClosedStatus;
  return QuantumChatError.isInstance(error) ? error.status : 500;
}

/** What a failure becomes: a server shutdown outranks whatever the aborted engine threw. */
function explainFailure(settings: RunSettings, error: unknown): unknown {
  if (settings.shutdownSignal?.aborted && !settings.client.closed) {
    return new QuantumChatError('shutting_down', 'The server is shutting down; retry the request.', { cause: error });
  }
  return error;
}

/** What an engine gets: its request id, and its signal, made on first read. */
class EngineContext implements ChatEngineContext {
  readonly requestId: string;
  readonly #run: EngineRun;
  constructor(requestId: string, run: EngineRun) {
    this.requestId = requestId;
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
class EngineRun {
  readonly iterator: AsyncIterator<ChatEngineEvent>;
  readonly #settings: RunSettings;
  #controller: AbortController | undefined = undefined;
  #unwatchClient: (() => void) | undefined = undefined;
  #finished = false;
  #stopped = false;
  #stopReason: unknown = undefined;
  readonly #onClientGone = () => {
    this.#controller!.abort(clientClosedError());
  };
  #onShutdown: (() => void) | undefined = undefined;

  constructor(settings: RunSettings) {
    this.#settings = settings;
    this.iterator = settings.engine.generate(settings.request, new EngineContext(settings.requestId, this))[Symbol.asyncIterator]();
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
    if (!controller.signal.aborted) this.#unwatchClient = this.#settings.client.onClose(this.#onClientGone);
    return controller.signal;
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

/** Runs the engine to its end and builds the non-streaming body (decisions §3). */
export async function runToCompletion(settings: RunSettings): Promise<string> {
  // Drawn first, as in a stream, so ids come in the same order either way.
  const completionId = settings.generateId('completion');
  const run = new EngineRun(settings);
  const { iterator } = run;
  const progress = new Progress(settings.engine, settings.request, settings.prompt);
  settings.track?.(() => progress.outcome(200, false));
  let indexer: ReturnType<typeof createToolCallIndexer> | undefined;
  const toolCalls: ToolCall[] = [];
  let reasoning = '';
  let content = '';
  const logprobs: TokenLogprob[] | undefined = settings.request.logprobs === undefined ? undefined : [];
  let finish: Extract<ChatEngineEvent, { type: 'finish' }> | undefined;
  try {
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      const event = step.value;
      progress.observe(event);
      if (event.type === 'reasoning') reasoning += event.text;
      else if (event.type === 'content') {
        content += event.text;
        if (logprobs !== undefined && event.logprobs !== undefined) for (const entry of event.logprobs) logprobs.push(entry);
      } else if (event.type === 'tool-call') {
        indexer ??= createToolCallIndexer(settings.generateId);
        const { call, started } = indexer.resolve(event.index, event.name);
        if (started) toolCalls.push({ id: call.id, type: 'function', function: { name: call.name, arguments: '' } });
        toolCalls[call.index]!.function.arguments += event.argumentsDelta;
      } else {
        finish = event;
        run.markFinished();
        break;
      }
    }
    if (finish === undefined) throw engineEndedEarly();
  } catch (thrown) {
    const error = explainFailure(settings, thrown);
    // A failed run acknowledges nothing: its settle runs beside the error.
    void settings.onSettled(progress.outcome(failureStatus(settings, error), true));
    throw settings.client.closed ? new ClientClosedError(error) : error;
  } finally {
    run.stop();
  }
  // An engine that finished although its client had left: the answer reaches nobody.
  const left = settings.client.closed;
  const acknowledged = settings.onSettled(progress.outcome(left ? clientClosedStatus : 200, left));
  if (acknowledged !== undefined) await acknowledged;
  return encodeCompletionBody({
    id: completionId,
    created: settings.createdSeconds,
    model: settings.request.model,
    reasoning: settings.request.reasoning ? reasoning : undefined,
    content: content === '' && toolCalls.length > 0 ? null : content,
    toolCalls,
    finishReason: toolCalls.length > 0 && finish.reason === 'stop' ? 'tool_calls' : finish.reason,
    // Asked for but never given (an engine that has none): `null`, not an empty list.
    logprobs: logprobs !== undefined && logprobs.length > 0 ? logprobs : undefined,
    usage: toWireUsage(finish.usage),
    systemFingerprint: finish.systemFingerprint,
  });
}

/**
 * Starts a stream (decisions §4): resolves with its SSE frames once the engine produced its
 * first event, so that an early failure is still a real HTTP error. An engine still silent
 * after the keep-alive interval does not hold the response back any longer: the stream starts
 * with a `: keep-alive` (proxies cut silent connections), and a failure after that is an
 * `error` frame, the stream ending without `[DONE]`.
 */
export function runToStream(settings: RunSettings): Promise<AsyncIterableIterator<string>> {
  const run = new EngineRun(settings);
  const progress = new Progress(settings.engine, settings.request, settings.prompt);
  settings.track?.(() => progress.outcome(200, false));
  let firstStep: Promise<IteratorResult<ChatEngineEvent>>;
  try {
    // A native promise even from an engine whose iterator returns another thenable (the same
    // promise, no extra turn, when it already is one).
    firstStep = Promise.resolve(run.iterator.next());
  } catch (error) {
    firstStep = Promise.reject(error);
  }
  const failed = (thrown: unknown): never => {
    run.stop();
    const error = explainFailure(settings, thrown);
    void settings.onSettled(progress.outcome(failureStatus(settings, error), true));
    throw settings.client.closed ? new ClientClosedError(error) : error;
  };
  const keepAliveMs = settings.keepAliveIntervalMs;
  // `then`, not `await`: nothing but this reaction is held while the engine is silent.
  if (!(keepAliveMs > 0 && keepAliveMs < Number.POSITIVE_INFINITY)) return firstStep.then((first) => startFrames(settings, run, progress, first), failed);
  return new Promise((resolve, reject) => {
    let started = false;
    const timer = setTimeout(() => {
      // A client that left has nobody to keep alive: the first step settles the request.
      if (settings.client.closed) return;
      started = true;
      resolve(startFrames(settings, run, progress, firstStep));
    }, keepAliveMs);
    firstStep.then(
      (first) => {
        if (started) return;
        clearTimeout(timer);
        resolve(startFrames(settings, run, progress, first));
      },
      (thrown: unknown) => {
        // Once started, the frame stream reports the failure as an error frame.
        if (started) return;
        clearTimeout(timer);
        try {
          failed(thrown);
        } catch (error) {
          reject(error);
        }
      },
    );
  });
}

/**
 * The frames of a stream: from the engine's first event, or (still pending after the
 * keep-alive interval) from a first `: keep-alive`.
 */
function startFrames(
  settings: RunSettings,
  run: EngineRun,
  progress: Progress,
  first: IteratorResult<ChatEngineEvent> | Promise<IteratorResult<ChatEngineEvent>>,
): AsyncIterableIterator<string> {
  const { iterator } = run;
  settings.onStreamStart?.();
  const encoder = createStreamFrameEncoder(settings.streamFormat, {
    id: settings.completionId ?? settings.generateId('completion'),
    created: settings.createdSeconds,
    model: settings.request.model,
  });
  const indexer = createToolCallIndexer(settings.generateId);
  const showReasoning = settings.request.reasoning;
  const showLogprobs = settings.request.logprobs !== undefined;

  /**
   * The frames of one engine event as one string ('' for none): one yield per event, not one
   * per frame, so a tool call's first fragment or the finish, usage and [DONE] frames cost one
   * pass through the async iterators between engine and socket.
   */
  function framesOf(event: ChatEngineEvent): string {
    switch (event.type) {
      case 'reasoning':
        return showReasoning && event.text !== '' ? encoder.reasoning(event.text) : '';
      case 'content':
        if (event.text === '') return '';
        return showLogprobs && event.logprobs !== undefined ? encoder.content(event.text, event.logprobs) : encoder.content(event.text);
      case 'tool-call': {
        const { call, started } = indexer.resolve(event.index, event.name);
        const start = started ? encoder.toolCallStart(call.index, call.id, call.name) : '';
        return event.argumentsDelta !== '' ? start + encoder.toolCallArguments(call.index, event.argumentsDelta) : start;
      }
      case 'finish': {
        const usage = toWireUsage(event.usage);
        const reason = indexer.count() > 0 && event.reason === 'stop' ? 'tool_calls' : event.reason;
        // With include_usage only the extra `choices: []` chunk carries usage: clients such as
        // LangChain add up every usage they see (decisions §4.3).
        const fingerprint = event.systemFingerprint;
        if (settings.includeUsage) return encoder.finish(reason, undefined, fingerprint) + encoder.usage(usage, fingerprint) + encoder.done();
        return encoder.finish(reason, usage, fingerprint) + encoder.done();
      }
    }
  }

  let settled = false;
  const settle = (interrupted: boolean): void | Promise<void> => {
    if (settled) return;
    settled = true;
    return settings.onSettled(progress.outcome(200, interrupted));
  };

  // A client that leaves settles the request at once, even while nobody pulls a frame (the
  // host waits for `drain`, or has not started reading the stream yet).
  const onClientGone = () => {
    void settle(true);
    run.stop();
  };
  const unwatchClient = settings.client.onClose(onClientGone);

  return new FrameStream(
    iterator,
    first,
    {
      encode(event) {
        progress.observe(event);
        return framesOf(event);
      },
      isLast: (event) => event.type === 'finish',
      beforeLast(event) {
        // The finish, usage and [DONE] frames acknowledge the answer: they wait for its settle.
        progress.observe(event);
        run.markFinished();
        return settle(false);
      },
      onFirstFrame: settings.onFirstToken,
      onFinished() {
        run.markFinished();
        void settle(false);
      },
      failure(error) {
        void settle(true);
        // The client that left cannot read an error frame; anyone else gets one.
        return settings.client.closed ? undefined : encoder.error(toErrorEnvelope(explainFailure(settings, error)));
      },
      onStalled(error) {
        void settle(true);
        run.stop(error);
        // The host may be parked on a full socket: only closing the connection frees it.
        try {
          settings.client.destroy();
        } catch {
          // A host whose destroy throws must not take the timer (and the process) down.
        }
      },
      onEnded() {
        unwatchClient();
        // Also reached when a host stops before reading one frame (the client left right
        // after the headers).
        void settle(true);
        run.stop();
      },
    },
    {
      keepAliveMs: settings.keepAliveIntervalMs,
      keepAliveFrame,
      stallTimeoutMs: settings.stallTimeoutMs ?? 0,
      endedEarly: engineEndedEarly,
    },
  );
}
