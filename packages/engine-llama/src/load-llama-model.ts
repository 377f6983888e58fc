import { availableParallelism } from 'node:os';
import type { ChatWrapper, Llama, LlamaContext, LlamaModel } from 'node-llama-cpp';
import { checkModelFile } from './check-model-file.js';
import { defaultContextSizeCap, defaultParallel, type LlamaEngineOptions, type LlamaModelSummary } from './llama-engine-options.js';
import { ModelLoadError } from './model-load-error.js';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/** The optional peer, or a sentence saying how to install it. */
export async function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    throw new ModelLoadError('Serving a GGUF model needs node-llama-cpp: install it beside @quantum-chat/engine-llama (npm install node-llama-cpp).', 'no-runtime', { cause: error });
  }
}

let sharedLlama: Promise<Llama> | undefined;

/** One llama.cpp runtime per process (it loads a native binary); GPU when node-llama-cpp finds one, else CPU. */
function processLlama(module: NodeLlamaCpp): Promise<Llama> {
  sharedLlama ??= module.getLlama({ gpu: 'auto', build: 'never', logLevel: module.LlamaLogLevel.error }).catch((error: unknown) => {
    sharedLlama = undefined;
    throw new ModelLoadError(`node-llama-cpp has no llama.cpp binary for this machine (${process.platform}-${process.arch}): reinstall node-llama-cpp so its prebuilt package for this platform is installed.`, 'no-runtime', { cause: error });
  });
  return sharedLlama;
}

export interface LoadedLlamaModel {
  LlamaChat: NodeLlamaCpp['LlamaChat'];
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  chatWrapper: ChatWrapper;
  summary: LlamaModelSummary;
}

function isInsufficientMemory(module: NodeLlamaCpp, error: unknown): boolean {
  return error instanceof module.InsufficientMemoryError || /not enough (v?ram|memory)|too large|failed to allocate/i.test((error as Error)?.message ?? '');
}

/** The architectures this llama.cpp knows (node-llama-cpp types the table as a const enum; at run time it is an object). */
function knownArchitectures(module: NodeLlamaCpp): ReadonlySet<string> {
  return new Set(Object.values((module as unknown as { GgufArchitectureType: Record<string, string> }).GgufArchitectureType));
}

/**
 * One thread per core that does math: node-llama-cpp's own default (`maxThreads`) can exceed the
 * cores the process may use (4 on a 2-core machine), and llama.cpp's threads spin while they
 * wait for each other, so one thread too many costs far more than it brings.
 */
function defaultThreads(llama: Llama): number {
  return Math.max(1, Math.min(llama.cpuMathCores, availableParallelism()));
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/**
 * The weights against the machine's memory (RAM and, with a GPU, its VRAM), from the file's
 * tensor directory: llama.cpp itself would map the file and fail deep inside, or swap.
 */
async function checkMemory(module: NodeLlamaCpp, llama: Llama, info: Awaited<ReturnType<NodeLlamaCpp['readGgufFileInfo']>>, file: string): Promise<void> {
  const insights = await module.GgufInsights.from(info, llama);
  const ram = await llama.getRamState();
  const vram = llama.gpu === false ? 0 : (await llama.getVramState()).total;
  if (insights.modelSize > ram.total + vram) {
    throw new ModelLoadError(
      `The model ${file} needs ${gib(insights.modelSize)} for its weights, more than this machine's memory (${gib(ram.total)} RAM${vram > 0 ? ` and ${gib(vram)} VRAM` : ''}); choose a smaller or more quantized model.`,
      'too-large',
    );
  }
}

/**
 * Loads a GGUF file with its context: checks first what can be told in one sentence (no
 * file, not GGUF, an architecture llama.cpp does not know, more memory than the machine has),
 * so the server can say it instead of dumping a native error.
 */
export async function loadLlamaModel(options: LlamaEngineOptions): Promise<LoadedLlamaModel> {
  const started = performance.now();
  const file = options.modelPath;
  const sizeBytes = await checkModelFile(file);
  const module = await importNodeLlamaCpp();
  let architecture: string;
  let info: Awaited<ReturnType<NodeLlamaCpp['readGgufFileInfo']>>;
  try {
    info = await module.readGgufFileInfo(file, { logWarnings: false });
    architecture = String(info.metadata.general.architecture);
  } catch (error) {
    throw new ModelLoadError(`The file ${file} is not a readable GGUF model (${(error as Error).message}).`, 'not-gguf', { cause: error });
  }
  if (!knownArchitectures(module).has(architecture)) {
    throw new ModelLoadError(`The model ${file} has the architecture '${architecture}', which this llama.cpp does not know; update node-llama-cpp or choose another model.`, 'unknown-architecture');
  }
  const llama = await processLlama(module);
  await checkMemory(module, llama, info, file);
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: file, gpuLayers: options.gpuLayers ?? 'auto' });
  } catch (error) {
    if (isInsufficientMemory(module, error)) {
      throw new ModelLoadError(`The model ${file} (${gib(sizeBytes)}) does not fit in this machine's memory (${gib((await llama.getRamState()).free)} free); choose a smaller or more quantized model.`, 'too-large', { cause: error });
    }
    throw new ModelLoadError(`llama.cpp could not load the model ${file}: ${(error as Error).message}.`, 'failed', { cause: error });
  }
  const parallel = Math.max(1, options.parallel ?? defaultParallel);
  let context: LlamaContext;
  try {
    context = await model.createContext({
      contextSize: options.contextSize ?? Math.min(model.trainContextSize, defaultContextSizeCap),
      sequences: parallel,
      threads: options.threads ?? defaultThreads(llama),
    });
  } catch (error) {
    await model.dispose();
    if (isInsufficientMemory(module, error)) throw new ModelLoadError(`The model ${file} loaded, but its context of ${options.contextSize ?? 'default'} tokens × ${parallel} sequences does not fit in memory; lower contextSize or parallel.`, 'too-large', { cause: error });
    throw new ModelLoadError(`llama.cpp could not create a context for ${file}: ${(error as Error).message}.`, 'failed', { cause: error });
  }
  const chatWrapper = module.resolveChatWrapper(model);
  return {
    LlamaChat: module.LlamaChat,
    llama,
    model,
    context,
    chatWrapper,
    summary: {
      file,
      sizeBytes,
      architecture,
      gpu: llama.gpu,
      gpuLayers: model.gpuLayers,
      contextSize: context.contextSize,
      parallel,
      chatTemplate: chatWrapper.wrapperName,
      loadMs: Math.round(performance.now() - started),
    },
  };
}
