/**
 * What is left of one generation's work: every step that could grow with the schema (a `$ref`
 * or `allOf` resolved, a value made, a character of string made or matched against a pattern)
 * takes from it, and running out ends the generation (`GenerationBudgetExceeded`), so no
 * request costs more than a bounded amount of synchronous work.
 * @internal
 */
export interface GenerationBudget {
  values: number;
  characters: number;
  /** `$ref`s followed and `allOf` parts merged. */
  resolveSteps: number;
  /** Characters of candidate strings tested against patterns. */
  matchedCharacters: number;
}

/** The budget of one arguments object. @internal */
export function createGenerationBudget(): GenerationBudget {
  return { values: 2_000, characters: 16_384, resolveSteps: 4_000, matchedCharacters: 262_144 };
}

/** Thrown inside the generator when the schema needs more than the budget allows. @internal */
export class GenerationBudgetExceeded extends Error {}
