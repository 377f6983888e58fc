// @quantum-chat/engine-llama/testing: a tiny GGUF model, written offline, for tests and benchmarks.

export { tinyGgufBytes, tinyChatTemplate, writeTinyGguf } from './testing/write-tiny-gguf.js';
export type { TinyModelOptions } from './testing/write-tiny-gguf.js';
export { encodeGguf, ggmlTypes } from './testing/gguf-writer.js';
export type { GgufTensor, GgufValue } from './testing/gguf-writer.js';
