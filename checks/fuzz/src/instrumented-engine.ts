import type { ChatEngine, ChatEngineContext, ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';

/** What the wrapper saw of one `generate` call. */
interface EngineCall {
  requestId: string;
  startedAt: number;
  /** `performance.now()` when the engine's AbortSignal fired. */
  abortedAt: number | undefined;
  /** How many times the handler pulled (`next()`) from the engine. */
  pulls: number;
  /** The engine yielded its `finish` event. */
  finished: boolean;
}

export interface InstrumentedEngine {
  engine: ChatEngine;
  calls: Map<string, EngineCall>;
}

/**
 * Wraps an engine to record, per request id, when its AbortSignal fired and how often the
 * handler pulled from it. Events pass through unchanged.
 */
export function instrumentEngine(inner: ChatEngine): InstrumentedEngine {
  const calls = new Map<string, EngineCall>();
  const engine: ChatEngine = {
    generate(request: ChatEngineRequest, context: ChatEngineContext): AsyncIterable<ChatEngineEvent> {
      const call: EngineCall = { requestId: context.requestId, startedAt: performance.now(), abortedAt: undefined, pulls: 0, finished: false };
      calls.set(context.requestId, call);
      if (context.signal.aborted) call.abortedAt = performance.now();
      else context.signal.addEventListener('abort', () => (call.abortedAt = performance.now()), { once: true });
      const source = inner.generate(request, context);
      return {
        [Symbol.asyncIterator]() {
          const iterator = source[Symbol.asyncIterator]();
          return {
            async next() {
              call.pulls++;
              const step = await iterator.next();
              if (!step.done && step.value.type === 'finish') call.finished = true;
              return step;
            },
            async return(value?: unknown) {
              await iterator.return?.(value as undefined);
              return { done: true, value: undefined };
            },
          };
        },
      };
    },
    // The prompt's bound and count too, so that the fuzzed hosts admit as the real one does.
    ...(inner.measurePrompt ? { measurePrompt: inner.measurePrompt.bind(inner) } : {}),
    ...(inner.countTokens ? { countTokens: inner.countTokens.bind(inner) } : {}),
  };
  return { engine, calls };
}

/**
 * An engine that never finishes: it yields `chunkBytes` of content on every pull, forever,
 * as fast as it is asked. Only backpressure can keep it from filling memory.
 */
export function createUnboundedEngine(chunkBytes = 8192): ChatEngine {
  const piece = 'lorem ipsum '.repeat(Math.ceil(chunkBytes / 12)).slice(0, chunkBytes);
  return {
    generate(_request, context) {
      return {
        [Symbol.asyncIterator]() {
          return {
            async next() {
              if (context.signal.aborted) throw context.signal.reason;
              return { done: false, value: { type: 'content', text: piece } satisfies ChatEngineEvent };
            },
            async return() {
              return { done: true, value: undefined };
            },
          };
        },
      };
    },
  };
}
