// @quantum-chat/engine-llama: serve Quantum chat models from a local GGUF file, on llama.cpp.

export { createLlamaEngine } from './create-llama-engine.js';
export type { LlamaEngine } from './create-llama-engine.js';
export type { LlamaEngineOptions, LlamaModelSummary } from './llama-engine-options.js';
export { defaultContextSizeCap, defaultMaxQueue, defaultParallel } from './llama-engine-options.js';
export { ModelLoadError } from './model-load-error.js';
export { checkModelFile } from './check-model-file.js';
/** The optional peer node-llama-cpp, or a ModelLoadError saying how to install it. */
export { importNodeLlamaCpp } from './load-llama-model.js';
