// @quantum-chat/engine-llama: serve Quantum chat models from a local GGUF file, on llama.cpp.

export { createLlamaEngine } from './create-llama-engine.js';
export type { LlamaEngine } from './create-llama-engine.js';
export type { LlamaEngineOptions, LlamaModelSummary } from './llama-engine-options.js';
export { defaultContextSizeCap, defaultMaxQueue, defaultParallel } from './llama-engine-options.js';
export { ModelLoadError } from './model-load-error.js';
export { checkModelFile } from './check-model-file.js';
export { resolveModelSource } from './resolve-model-source.js';
export type { ResolveModelSourceOptions } from './resolve-model-source.js';
