// @quantum-chat/engine-upstream: serve Quantum chat models from any OpenAI-compatible runtime.

/** The engine and its options. */
export { createUpstreamEngine } from './create-upstream-engine.js';
export type { UpstreamApi, UpstreamDeployment, UpstreamEngineOptions, UpstreamReasoningMode, UpstreamRequestStart, UpstreamRequestEnd, UpstreamRequestWatcher, UsageReplacement } from './upstream-engine-options.js';
export { defaultAnswerTimeoutMs, defaultConnectTimeoutMs, defaultFirstTokenTimeoutMs, defaultIdleTimeoutMs } from './upstream-engine-options.js';

export type { RetryOptions } from './retry-delay.js';
export type { UpstreamLimits } from './upstream-limits.js';
export { defaultUpstreamLimits } from './upstream-limits.js';
export type { CircuitBreakerOptions } from './circuit-breaker.js';

/** Building blocks, for other OpenAI-compatible consumers (clients, proxies). */
// The `<think>` splitter is the core's (`@quantum-chat/core/dialect`), kept here for existing imports.
export { createThinkTagSplitter } from '@quantum-chat/core/dialect';
export type { ThinkTagPiece, ThinkTagSplitter } from '@quantum-chat/core/dialect';
export { countApproximateTokens, countApproximatePromptTokens } from './approximate-tokens.js';
export { createUtf8Reads } from './utf8-reads.js';
export type { Utf8Reads } from './utf8-reads.js';
