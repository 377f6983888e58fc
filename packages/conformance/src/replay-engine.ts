import { QuantumChatError, isErrorCode, type ChatEngine, type ChatEngineEvent, type ChatEngineRequest } from '@quantum-chat/core';
import type { ReplayEvent } from './fixture-schemas.js';
import { parseEngineScript } from './parse-engine-script.js';

export interface ReplayEngineOptions {
  /**
   * Hold the script's last step (its last event, or its error) until {@link ReplayEngine.markFirstFrame}
   * is called or `holdTimeoutMs` passes. A host that buffers the whole stream then cannot show
   * its first frame before the last event, and `firstFrameBeforeLastEvent` stays false.
   */
  holdLastEvent?: boolean;
  /** 2000 ms by default. */
  holdTimeoutMs?: number;
}

/** A `ChatEngine` that replays a recorded script, with hooks that show whether the host streamed. */
export interface ReplayEngine extends ChatEngine {
  readonly events: readonly ReplayEvent[];
  /** Every request `generate` was called with. */
  readonly requests: readonly ChatEngineRequest[];
  /** Events handed to the host so far (an `error` step counts once thrown). */
  readonly yielded: number;
  /** The engine's signal was aborted while it ran. */
  readonly aborted: boolean;
  /** The reader saw the first bytes of the response: call this from the test. */
  markFirstFrame(): void;
  /** `true` once the first frame was seen before the last step was released; `undefined` before either. */
  readonly firstFrameBeforeLastEvent: boolean | undefined;
}

/** `setImmediate` where the runtime has it (Node, Bun), else a zero timer (workers, Deno). */
const scheduleMacrotask: (callback: () => void) => unknown =
  typeof setImmediate === 'function' ? setImmediate : (callback) => setTimeout(callback, 0);
const cancelMacrotask: (handle: unknown) => void =
  typeof clearImmediate === 'function' ? (handle) => clearImmediate(handle as ReturnType<typeof setImmediate>) : (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>);

/** A macrotask turn, so each event really is a separate write on the wire. */
function nextMacrotask(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = scheduleMacrotask(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    const onAbort = () => {
      cancelMacrotask(timer);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function waitFor(gate: Promise<void>, timeoutMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    signal.addEventListener('abort', done, { once: true });
    void gate.then(done);
  });
}

function toError(step: Extract<ReplayEvent, { type: 'error' }>): QuantumChatError {
  if (!isErrorCode(step.code)) return new QuantumChatError('internal_error', step.message);
  return new QuantumChatError(step.code, step.message);
}

/** The script of each call: the events between `next-call` lines. */
function splitCalls(events: readonly ReplayEvent[]): Exclude<ReplayEvent, { type: 'next-call' }>[][] {
  const calls: Exclude<ReplayEvent, { type: 'next-call' }>[][] = [[]];
  for (const event of events) {
    if (event.type === 'next-call') calls.push([]);
    else calls.at(-1)!.push(event);
  }
  return calls;
}

/**
 * A `ChatEngine` that replays an `.engine.jsonl` script (its text, or parsed events): each
 * event comes after a macrotask, an `error` line throws a `QuantumChatError`, and the abort
 * signal stops it at once. A `next-call` line starts the script of the next call; the last
 * script is replayed for every call after it. With no script at all, any call is a test failure.
 *
 * @example
 * const engine = createReplayEngine('{"type":"content","text":"Hi"}\n{"type":"finish",…}');
 * const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() });
 */
export function createReplayEngine(script: string | readonly ReplayEvent[] | undefined, options: ReplayEngineOptions = {}): ReplayEngine {
  const events = typeof script === 'string' ? parseEngineScript(script) : script;
  const requests: ChatEngineRequest[] = [];
  let yielded = 0;
  let aborted = false;
  let firstFrameSeen = false;
  let firstFrameBeforeLastEvent: boolean | undefined;
  let releaseGate!: () => void;
  const gate = new Promise<void>((resolve) => {
    releaseGate = resolve;
  });

  const calls = events === undefined ? undefined : splitCalls(events);

  async function* generate(request: ChatEngineRequest, context: { signal: AbortSignal }): AsyncGenerator<ChatEngineEvent> {
    requests.push(request);
    if (calls === undefined) throw new Error('This case has no .engine.jsonl, so the handler must not call the engine.');
    // The n-th call replays the n-th script; calls past the last replay the last.
    const script = calls[Math.min(requests.length, calls.length) - 1]!;
    const onAbort = () => {
      aborted = true;
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (const [index, step] of script.entries()) {
        await nextMacrotask(context.signal);
        context.signal.throwIfAborted();
        if (step.type === 'hold') {
          // Silent until the reader saw the first bytes: only a keep-alive can come before.
          await waitFor(gate, options.holdTimeoutMs ?? 2000, context.signal);
          continue;
        }
        const last = index === script.length - 1;
        if (last) {
          if (options.holdLastEvent === true && index > 0) await waitFor(gate, options.holdTimeoutMs ?? 2000, context.signal);
          context.signal.throwIfAborted();
          firstFrameBeforeLastEvent = firstFrameSeen;
        }
        yielded++;
        if (step.type === 'error') throw toError(step);
        yield step;
      }
    } finally {
      context.signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    generate,
    events: events ?? [],
    requests,
    get yielded() {
      return yielded;
    },
    get aborted() {
      return aborted;
    },
    markFirstFrame() {
      firstFrameSeen = true;
      releaseGate();
    },
    get firstFrameBeforeLastEvent() {
      return firstFrameBeforeLastEvent;
    },
  };
}
