import type { ChatEngine, ChatEngineRequest, PromptMeasure } from './chat-engine.js';

/**
 * A prompt bounded under this many tokens is cheap to count: at once, before anything else.
 * A promise and a turn of the event loop, or a look-up of a request limit first, would cost
 * more than the count. The engines that count in turns and the access controls that defer
 * counting share it.
 */
export const countPromptAtOnceBelow = 4096;

type Count = () => number | Promise<number>;

/**
 * One request's prompt as the core hands it on (to the access control, to the run): the
 * engine's measure, its count remembered so that it is counted once. A class, not a literal
 * with closures: one hidden class for every request.
 */
export class MeasuredPrompt implements PromptMeasure {
  readonly bound: number;
  /** Present when the bound is not the count (see `PromptMeasure.count`). */
  readonly count: Count | undefined;
  readonly #count: Count | undefined;
  /** The deprecated `countPromptTokens` of an engine that still has it: a count that never returns a promise. */
  readonly #countAtOnce: (() => number) | undefined;
  #known: number | undefined;
  /** A count in turns under way: asked again, the same one is awaited. */
  #counting: Promise<number> | undefined;

  constructor(measure: PromptMeasure, countAtOnce?: () => number) {
    this.bound = measure.bound;
    this.#count = measure.count?.bind(measure);
    this.count = this.#count === undefined ? undefined : () => this.#counted();
    this.#countAtOnce = countAtOnce;
  }

  #counted(): number | Promise<number> {
    if (this.#known !== undefined) return this.#known;
    if (this.#counting !== undefined) return this.#counting;
    const counted = this.#count!();
    if (typeof counted === 'number') return (this.#known = counted);
    return (this.#counting = counted.then((tokens) => (this.#known = tokens)));
  }

  /**
   * The count now, for what cannot wait (the usage of a run that ended early, a deprecated
   * `promptTokens` read): the remembered count, else counted at once if the engine counts so,
   * else (a long prompt being counted in turns) the bound, which the count never exceeds.
   */
  tokensNow(): number {
    if (this.#count === undefined) return this.bound;
    if (this.#known !== undefined) return this.#known;
    if (this.#countAtOnce !== undefined) return (this.#known = this.#countAtOnce());
    const counted = this.#counted();
    if (typeof counted === 'number') return counted;
    // Its failure is the access control's to see (it awaits the same promise), not an unhandled rejection here.
    counted.catch(() => undefined);
    return this.bound;
  }
}

/**
 * The engine's measure of a request's prompt. An engine that still has the counting methods
 * `measurePrompt` replaced is measured with them, as the core used them before: with
 * `estimatePromptTokens` the bound, counted in turns past `countPromptAtOnceBelow`; without it,
 * counted at once. Its `countPromptTokens` still answers what cannot wait, exactly, as before.
 */
export function measurePromptOf(engine: ChatEngine, request: ChatEngineRequest): MeasuredPrompt {
  const countAtOnce = engine.countPromptTokens === undefined ? undefined : () => engine.countPromptTokens!(request);
  if (engine.measurePrompt !== undefined) return new MeasuredPrompt(engine.measurePrompt(request), countAtOnce);
  const bound = engine.estimatePromptTokens?.(request);
  if (bound === undefined) return new MeasuredPrompt({ bound: countAtOnce?.() ?? 0 });
  const inTurns = engine.countPromptTokensAsync;
  const count = inTurns !== undefined && bound > countPromptAtOnceBelow ? () => inTurns.call(engine, request) : (countAtOnce ?? (() => 0));
  return new MeasuredPrompt({ bound, count }, countAtOnce);
}
