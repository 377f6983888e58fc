/** The deterministic reference engine: development and tests, not a language model. */
export { createReferenceEngine } from './create-reference-engine.js';
export type { ReferenceEngineOptions } from './create-reference-engine.js';

/** The prompt-token count the engine reports, for callers that reserve quota without an engine at hand. */
export { countPromptTokens, countPromptTokensAsync, estimatePromptTokens } from './count-prompt-tokens.js';
