// @quantum-chat/engine-upstream: serve Quantum chat models from any OpenAI-compatible runtime.

/** The engine and its options. */
export { createUpstreamEngine } from './create-upstream-engine.js';
export type { UpstreamEngineOptions, UpstreamReasoningMode } from './upstream-engine-options.js';
export { defaultConnectTimeoutMs, defaultFirstTokenTimeoutMs, defaultIdleTimeoutMs } from './upstream-engine-options.js';

/** Building blocks, for other OpenAI-compatible consumers (clients, proxies). */
export { createThinkTagSplitter } from './think-tag-splitter.js';
export type { ThinkTagPiece, ThinkTagSplitter } from './think-tag-splitter.js';
export { countApproximateTokens, countApproximatePromptTokens } from './approximate-tokens.js';
