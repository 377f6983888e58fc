import { QuantumChatError, type ChatEngine, type ChatEngineContext, type ChatEngineEvent, type ChatEngineRequest, type PromptMeasure } from '@quantum-chat/core';
import type { LlamaContextSequence } from 'node-llama-cpp';
import { countPrompt, generateAnswer } from './generate-answer.js';
import { defaultMaxQueue, type LlamaEngineOptions, type LlamaModelSummary } from './llama-engine-options.js';
import { loadLlamaModel, type LoadedLlamaModel } from './load-llama-model.js';
import { createSequencePool, type SequencePool } from './sequence-pool.js';

/** A {@link ChatEngine} on a local GGUF model; it starts loading when created. */
export interface LlamaEngine extends ChatEngine {
  /** Resolves once the model is loaded (rejects with a `ModelLoadError` that says why not). */
  readonly ready: Promise<LlamaModelSummary>;
  /** The loaded model's summary; `undefined` while loading or after a failed load. */
  readonly summary: LlamaModelSummary | undefined;
  /** Why the load failed (a `ModelLoadError`, usually); `undefined` while loading or once loaded. */
  readonly loadFailure: Error | undefined;
  /** Frees the context and the model (requests still answering fail). */
  dispose(): Promise<void>;
}

interface Loaded extends LoadedLlamaModel {
  pool: SequencePool<LlamaContextSequence>;
}

/**
 * Serves chat completions from a GGUF file in-process, on llama.cpp through node-llama-cpp
 * (an optional peer: install it beside this package). Each request holds a context sequence
 * (`parallel` of them); up to `maxQueue` more wait, the rest get 503 `overloaded`.
 *
 * @example
 * const engine = createLlamaEngine({ modelPath: './models/qwen2.5-0.5b-instruct-q4_k_m.gguf' });
 * await engine.ready;
 * const registry = createModelRegistry({ engine });
 */
export function createLlamaEngine(options: LlamaEngineOptions): LlamaEngine {
  let loaded: Loaded | undefined;
  let loadFailure: Error | undefined;
  const loading: Promise<Loaded> = loadLlamaModel(options).then((model) => {
    const sequences = Array.from({ length: model.summary.parallel }, () => model.context.getSequence());
    loaded = { ...model, pool: createSequencePool(sequences, options.maxQueue ?? defaultMaxQueue) };
    return loaded;
  });
  // A failed load is reported through `ready` and to each request, never as an unhandled rejection.
  loading.catch((error: unknown) => {
    loadFailure = error instanceof Error ? error : new Error(String(error));
  });

  async function current(): Promise<Loaded> {
    if (loaded !== undefined) return loaded;
    try {
      return await loading;
    } catch (error) {
      throw new QuantumChatError('engine_unavailable', `The local model is not available: ${(error as Error).message}`, { cause: error });
    }
  }

  async function* generate(request: ChatEngineRequest, context: ChatEngineContext): AsyncGenerator<ChatEngineEvent> {
    const model = await current();
    const lease = await model.pool.acquire(context.signal);
    try {
      yield* generateAnswer(model, lease.item, request, context.signal);
    } finally {
      lease.release();
    }
  }

  function measurePrompt(request: ChatEngineRequest): PromptMeasure {
    // Before the model is loaded no count is possible; the bytes bound the byte-level count.
    if (loaded === undefined) return { bound: new TextEncoder().encode(request.messages.map((message) => message.content ?? '').join('')).length };
    // Counted at once, the bound is the model's own count.
    return { bound: countPrompt(loaded, request) };
  }

  return {
    get ready() {
      return loading.then((model) => model.summary);
    },
    get summary() {
      return loaded?.summary;
    },
    get loadFailure() {
      return loadFailure;
    },
    generate,
    measurePrompt,
    /** @deprecated `measurePrompt(request).bound`; kept until the next major release. */
    countPromptTokens: (request: ChatEngineRequest) => measurePrompt(request).bound,
    countTokens(text) {
      if (loaded === undefined) return new TextEncoder().encode(text).length;
      return loaded.model.tokenize(text).length;
    },
    async dispose() {
      const model = await loading.catch(() => undefined);
      if (model === undefined) return;
      await model.context.dispose();
      await model.model.dispose();
    },
  };
}
