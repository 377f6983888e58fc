/** Options of {@link createLlamaEngine}. */
export interface LlamaEngineOptions {
  /** Path of a `.gguf` file. */
  modelPath: string;
  /** Tokens of context per sequence; default: the model's trained length, at most 4096. */
  contextSize?: number;
  /** Layers offloaded to the GPU: `'auto'` (the default: as many as fit, none without a GPU), `'max'`, or a count; `0` keeps it on the CPU. */
  gpuLayers?: number | 'auto' | 'max';
  /** Requests answered at once (context sequences, batched together by llama.cpp); default 1. */
  parallel?: number;
  /** Requests that may wait for a sequence; beyond them a request gets 503 `overloaded`. Default 16. */
  maxQueue?: number;
  /** CPU threads llama.cpp uses; default: one per core that does math (at most the cores this process may use). */
  threads?: number;
}

export const defaultContextSizeCap = 4096;
export const defaultParallel = 1;
export const defaultMaxQueue = 16;

/** What was loaded, for the start banner. */
export interface LlamaModelSummary {
  file: string;
  sizeBytes: number;
  architecture: string;
  /** `false` on the CPU, else the GPU backend (`'cuda'`, `'vulkan'`, `'metal'`). */
  gpu: false | string;
  gpuLayers: number;
  contextSize: number;
  parallel: number;
  chatTemplate: string;
  loadMs: number;
}
