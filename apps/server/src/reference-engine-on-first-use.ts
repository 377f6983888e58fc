import type { ChatEngine, ChatEngineContext, ChatEngineEvent, ChatEngineRequest, PromptMeasure } from '@quantum-chat/core';
import type { ReferenceEngineOptions } from '@quantum-chat/engine-reference';

type ReferenceEngine = ChatEngine & Required<Pick<ChatEngine, 'measurePrompt' | 'countTokens'>>;

/**
 * No o200k token is shorter than one UTF-8 byte, and a request's JSON holds every text the
 * engine counts (escaping only adds bytes) with more than the framing's tokens around each:
 * its bytes bound the prompt's count without the tokenizer.
 */
function promptBytesBound(request: ChatEngineRequest): number {
  return Buffer.byteLength(JSON.stringify(request.messages)) + Buffer.byteLength(JSON.stringify(request.tools)) + 3;
}

/**
 * The reference engine, its package imported at the first request that needs it (a test key,
 * or a model the config maps to no other engine): its o200k tokenizer's tables are about
 * 27 MiB of the server's memory, a sixth of what it held at start, and a server that relays
 * live keys to an upstream may never answer a test key. Until it is loaded, a prompt's bound
 * is its JSON's bytes and its count waits for the load; afterwards every call goes straight
 * to the engine.
 *
 * @example
 * const testEngine = referenceEngineOnFirstUse(config.reference);
 */
export function referenceEngineOnFirstUse(options: ReferenceEngineOptions = {}): ChatEngine {
  let engine: ReferenceEngine | undefined;
  let loading: Promise<ReferenceEngine> | undefined;
  const load = (): Promise<ReferenceEngine> => {
    loading ??= import('@quantum-chat/engine-reference').then(
      (module) => (engine = module.createReferenceEngine(options) as ReferenceEngine),
      (error: unknown) => {
        loading = undefined; // a later request tries again
        throw error;
      },
    );
    return loading;
  };

  async function* generateOnceLoaded(request: ChatEngineRequest, context: ChatEngineContext): AsyncGenerator<ChatEngineEvent> {
    yield* (await load()).generate(request, context);
  }

  return {
    generate(request, context) {
      return engine !== undefined ? engine.generate(request, context) : generateOnceLoaded(request, context);
    },
    measurePrompt(request): PromptMeasure {
      if (engine !== undefined) return engine.measurePrompt(request);
      const bound = promptBytesBound(request);
      return { bound, count: () => load().then((loaded) => loaded.measurePrompt(request).count?.() ?? bound) };
    },
    countTokens(text) {
      // Only text the engine generated is counted, and it generates only once loaded.
      if (engine !== undefined) return engine.countTokens(text);
      return Buffer.byteLength(text);
    },
  };
}
