import type { ChatEngine, ChatEngineContext, ChatEngineEvent, ChatEngineRequest, PromptMeasure } from '@quantum-chat/core';
import { countingSliceLength, countPromptTokens, countPromptTokensAsync, estimatePromptTokens, measurePrompt, promptLength } from './count-prompt-tokens.js';
import { createPacedIterable, type PacingOptions } from './create-paced-iterable.js';
import { planResponse } from './plan-response.js';
import type { PieceSize } from './truncate-to-token-budget.js';
import { countTextTokens } from './tokenizer.js';

/** Options of `createReferenceEngine`. Pacing only changes timing, never the events. */
export interface ReferenceEngineOptions {
  /** Wait this long before the first event, like a model's time to first token. Default 0. */
  firstTokenDelayMs?: number;
  /** At most this many pieces (about one token each) per second after the first. Default 0: unlimited, no timers. */
  tokensPerSecond?: number;
}

/**
 * Whole texts for a client that waits for the answer (nothing is sent before `finish`): a count
 * instead of a token-by-token encode and decode, and a few events instead of one per token.
 * Paced, the pieces stay, so that pacing takes as long either way.
 */
function pieceSizeFor(context: ChatEngineContext, pacing: PacingOptions): PieceSize {
  return context.stream === false && !(pacing.tokensPerSecond! > 0) ? 'whole' : 'token';
}

/**
 * The deterministic reference engine (decisions §8): a `ChatEngine` whose events are a pure
 * function of the request. It is not a language model. It quotes and answers the last user
 * message (arithmetic included), writes a reasoning trace first when `request.reasoning` is
 * set, calls tools with schema-valid arguments, answers from tool results, and honours
 * `maxTokens` (counted with the o200k_base tokenizer, reasoning included) and `stop`.
 *
 * On abort, iteration throws `context.signal.reason` (an `AbortError` `DOMException` unless
 * the caller gave a reason) and clears any pacing timer; `return()` ends it at once.
 *
 * @example
 * const engine = createReferenceEngine({ tokensPerSecond: 50 });
 * for await (const event of engine.generate(request, { signal, requestId: 'req_1' })) {
 *   if (event.type === 'content') process.stdout.write(event.text);
 * }
 */
export function createReferenceEngine(options: ReferenceEngineOptions = {}): ChatEngine {
  const pacing: PacingOptions = {
    firstTokenDelayMs: options.firstTokenDelayMs ?? 0,
    tokensPerSecond: options.tokensPerSecond ?? 0,
  };
  return {
    generate(request: ChatEngineRequest, context: ChatEngineContext): AsyncIterable<ChatEngineEvent> {
      // A long prompt is counted in turns first; planning then finds its count remembered.
      const prepare = () => (promptLength(request) > countingSliceLength ? countPromptTokensAsync(request) : undefined);
      return createPacedIterable(() => planResponse(request, pieceSizeFor(context, pacing)), pacing, context, prepare);
    },
    measurePrompt(request: ChatEngineRequest): PromptMeasure {
      return measurePrompt(request);
    },
    /** @deprecated `measurePrompt(request).count()`, or the exported `countPromptTokens`; kept until the next major release. */
    countPromptTokens,
    /** @deprecated `measurePrompt(request).count()`, or the exported `countPromptTokensAsync`; kept until the next major release. */
    countPromptTokensAsync,
    /** @deprecated `measurePrompt(request).bound`, or the exported `estimatePromptTokens`; kept until the next major release. */
    estimatePromptTokens,
    countTokens(text: string): number {
      return countTextTokens(text);
    },
  };
}
