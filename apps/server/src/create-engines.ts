import { join, resolve } from 'node:path';
import { builtinModels, createModelRegistry, type ChatEngine, type ModelInfo, type ModelRegistry } from '@quantum-chat/core';
import type { createUpstreamEngine as CreateUpstreamEngine, UpstreamDeployment, UpstreamEngineOptions } from '@quantum-chat/engine-upstream';
import { ConfigError } from './config.js';
import type { LlamaEngine } from '@quantum-chat/engine-llama';
import type { LlamaModelConfig, ModelConfig, ServerConfig, UpstreamModelConfig } from './config-schema.js';
import { referenceEngineOnFirstUse } from './reference-engine-on-first-use.js';

/** The engines of a config: one registry shared by every handler, and the test-key engine. */
export interface ConfiguredEngines {
  registry: ModelRegistry;
  /** Always the reference engine: test keys never reach a live engine (decisions §6). */
  testEngine: ChatEngine;
  /** One line per model for the startup log, e.g. `upstream llama3.2 at http://127.0.0.1:11434/v1`. */
  summary: Record<string, string>;
  /** The local (llama.cpp) models, each loaded once however many ids serve it; they load in the background. */
  localModels: LocalModel[];
}

/** A GGUF file being loaded, and the model ids it serves. */
export interface LocalModel {
  ids: string[];
  /** As configured: a path or a `hf:` URI. */
  file: string;
  engine: LlamaEngine;
}

/** Where the server gets what a local model needs: the data directory for downloads, the progress bar's output. */
export interface LocalModelContext {
  cwd: string;
  progress?: (text: string) => void;
}

/** The key an `apiKeyEnv` names; failing at start beats a 502 on every request of this model. */
function readApiKey(env: Readonly<Record<string, string | undefined>>, variable: string | undefined, where: string): string | undefined {
  if (variable === undefined) return undefined;
  const apiKey = env[variable];
  if (apiKey === undefined || apiKey === '') throw new ConfigError(`Invalid config: ${where}.apiKeyEnv names ${variable}, which is not set in the environment.`);
  return apiKey;
}

/** The engine's servers: the replicas of `deployments`, or the one of `baseUrl` and `model`. */
function deploymentsOf(modelId: string, model: UpstreamModelConfig, env: Readonly<Record<string, string | undefined>>): UpstreamDeployment[] {
  const configured = model.deployments ?? [{ baseUrl: model.baseUrl!, model: model.model!, apiKeyEnv: model.apiKeyEnv, api: model.api }];
  return configured.map((deployment, index) => {
    const where = model.deployments === undefined ? `models["${modelId}"]` : `models["${modelId}"].deployments[${index}]`;
    const apiKey = readApiKey(env, deployment.apiKeyEnv, where);
    const weight = 'weight' in deployment ? deployment.weight : undefined;
    const maxConcurrency = 'maxConcurrency' in deployment ? deployment.maxConcurrency : undefined;
    return {
      baseUrl: deployment.baseUrl,
      model: deployment.model,
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(weight !== undefined ? { weight } : {}),
      ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
      ...(deployment.api !== undefined ? { api: deployment.api } : {}),
    };
  });
}

function createUpstreamFromConfig(
  createUpstreamEngine: typeof CreateUpstreamEngine,
  modelId: string,
  model: UpstreamModelConfig,
  env: Readonly<Record<string, string | undefined>>,
  hooks: EngineHooks,
): ChatEngine {
  return createUpstreamEngine({
    deployments: deploymentsOf(modelId, model, env),
    ...(model.connectTimeoutMs !== undefined ? { connectTimeoutMs: model.connectTimeoutMs } : {}),
    ...(model.firstTokenTimeoutMs !== undefined ? { firstTokenTimeoutMs: model.firstTokenTimeoutMs } : {}),
    ...(model.idleTimeoutMs !== undefined ? { idleTimeoutMs: model.idleTimeoutMs } : {}),
    ...(model.answerTimeoutMs !== undefined ? { answerTimeoutMs: model.answerTimeoutMs } : {}),
    ...(model.reasoning !== undefined ? { reasoning: model.reasoning } : {}),
    ...(model.passThrough !== undefined ? { passThrough: model.passThrough } : {}),
    ...(model.limits !== undefined ? { limits: model.limits } : {}),
    ...(hooks.onUpstreamRequest !== undefined ? { onUpstreamRequest: hooks.onUpstreamRequest } : {}),
    ...(hooks.onUsageReplaced !== undefined ? { onUsageReplaced: hooks.onUsageReplaced } : {}),
  });
}

/** The startup log's line of an upstream model. */
function describeUpstream(model: UpstreamModelConfig): string {
  const on = (api: string | undefined) => (api === 'responses' ? ' (Responses API)' : '');
  if (model.deployments === undefined) return `upstream ${model.model} at ${model.baseUrl}${on(model.api)}`;
  return `upstream, ${model.deployments.length} deployments: ${model.deployments.map((deployment) => `${deployment.model} at ${deployment.baseUrl}${on(deployment.api)}`).join(', ')}`;
}

/** What the server hands every upstream engine: the tracing hook, when traces are on, and the log of replaced usage. */
export interface EngineHooks {
  onUpstreamRequest?: UpstreamEngineOptions['onUpstreamRequest'];
  onUsageReplaced?: UpstreamEngineOptions['onUsageReplaced'];
}

/**
 * A model the config adds beside the four (decisions §9). It shows reasoning only when its
 * upstream is told to keep it: `auto` means "as the model does", and an added model does not.
 */
function addedModelInfo(id: string, model: ModelConfig): ModelInfo {
  return {
    id,
    requiresPlan: model.requiresPlan ?? null,
    reasoning: (model.engine === 'upstream' && model.reasoning === 'keep') || (model.engine === 'llama' && model.reasoning === true),
    ...(model.ownedBy !== undefined ? { ownedBy: model.ownedBy } : {}),
  };
}

/**
 * Builds the engines a config asks for: the reference engine for every model not mapped to an
 * upstream, and for test keys.
 *
 * @example
 * const { registry, testEngine } = await createEngines(config, process.env);
 */
export async function createEngines(
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>> = {},
  hooks: EngineHooks = {},
  local: LocalModelContext = { cwd: process.cwd() },
): Promise<ConfiguredEngines> {
  // Its tokenizer loads at its first request: a relaying server may never need it.
  const reference = referenceEngineOnFirstUse(config.reference);
  const usesUpstream = Object.values(config.models).some((model) => model.engine === 'upstream');
  // Loaded only when a model needs it: it brings undici, which a reference-only server does not use.
  const createUpstreamEngine = usesUpstream ? (await import('@quantum-chat/engine-upstream')).createUpstreamEngine : undefined;
  const engines: Record<string, ChatEngine> = {};
  const summary: Record<string, string> = {};
  const localModels = await createLocalModels(config, env, local);
  for (const { ids, engine, file } of localModels) {
    for (const id of ids) {
      engines[id] = engine;
      summary[id] = `llama.cpp ${file}`;
    }
  }
  const builtinIds = new Set(builtinModels.map((model) => model.id));
  // The four first, in the spec's order; then the added ones, in the config's.
  const added = Object.entries(config.models).filter(([id]) => !builtinIds.has(id));
  const models = [...builtinModels, ...added.map(([id, model]) => addedModelInfo(id, model))];
  for (const { id } of models) {
    const chosen = config.models[id];
    if (engines[id] !== undefined) continue;
    if (chosen?.engine === 'upstream' && createUpstreamEngine !== undefined) {
      engines[id] = createUpstreamFromConfig(createUpstreamEngine, id, chosen, env, hooks);
      summary[id] = describeUpstream(chosen);
    } else {
      summary[id] = 'reference';
    }
  }
  const registry = createModelRegistry({
    engine: reference,
    engines,
    models,
    ...(config.ownedBy !== undefined ? { ownedBy: config.ownedBy } : {}),
  });
  return { registry, testEngine: reference, summary, localModels };
}

/** The settings that make two ids one loaded model: the same file with the same settings. */
function localModelKey(model: LlamaModelConfig): string {
  return JSON.stringify([model.file, model.contextSize, model.gpuLayers, model.parallel, model.maxQueue, model.threads]);
}

/**
 * The llama.cpp engines of a config, one per distinct file and settings (the four ids of
 * `--model` share one). Files are resolved (and `hf:` ones downloaded) now; loading starts now
 * and goes on in the background (`engine.ready`).
 */
async function createLocalModels(config: ServerConfig, env: Readonly<Record<string, string | undefined>>, local: LocalModelContext): Promise<LocalModel[]> {
  const groups = new Map<string, { model: LlamaModelConfig; ids: string[] }>();
  for (const [id, model] of Object.entries(config.models)) {
    if (model.engine !== 'llama') continue;
    const key = localModelKey(model);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { model, ids: [id] });
    else group.ids.push(id);
  }
  if (groups.size === 0) return [];
  // Loaded only when a model needs it: node-llama-cpp is an optional install.
  const { createLlamaEngine, resolveModelSource } = await import('@quantum-chat/engine-llama');
  const created: LocalModel[] = [];
  for (const { model, ids } of groups.values()) {
    // `hf:` models are downloaded once into the data directory.
    const modelPath = await resolveModelSource(model.file, {
      cwd: local.cwd,
      directory: join(resolve(local.cwd, config.dataDir), 'models'),
      env,
      ...(local.progress !== undefined ? { progress: local.progress } : {}),
    });
    const engine = createLlamaEngine({
      modelPath,
      ...(model.contextSize !== undefined ? { contextSize: model.contextSize } : {}),
      ...(model.gpuLayers !== undefined ? { gpuLayers: model.gpuLayers } : {}),
      ...(model.parallel !== undefined ? { parallel: model.parallel } : {}),
      ...(model.maxQueue !== undefined ? { maxQueue: model.maxQueue } : {}),
      ...(model.threads !== undefined ? { threads: model.threads } : {}),
    });
    created.push({ ids, file: model.file, engine });
  }
  return created;
}
