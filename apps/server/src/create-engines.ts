import { builtinModels, createModelRegistry, type ChatEngine, type ModelInfo, type ModelRegistry } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import type { createUpstreamEngine as CreateUpstreamEngine, UpstreamEngineOptions } from '@quantum-chat/engine-upstream';
import { ConfigError } from './config.js';
import type { ModelConfig, ServerConfig, UpstreamModelConfig } from './config-schema.js';

/** The engines of a config: one registry shared by every handler, and the test-key engine. */
export interface ConfiguredEngines {
  registry: ModelRegistry;
  /** Always the reference engine: test keys never reach a live engine (decisions §6). */
  testEngine: ChatEngine;
  /** One line per model for the startup log, e.g. `upstream llama3.2 at http://127.0.0.1:11434/v1`. */
  summary: Record<string, string>;
}

function createUpstreamFromConfig(
  createUpstreamEngine: typeof CreateUpstreamEngine,
  modelId: string,
  model: UpstreamModelConfig,
  env: Readonly<Record<string, string | undefined>>,
  hooks: EngineHooks,
): ChatEngine {
  let apiKey: string | undefined;
  if (model.apiKeyEnv !== undefined) {
    apiKey = env[model.apiKeyEnv];
    // Failing at start beats a 502 on every request of this model.
    if (apiKey === undefined || apiKey === '') {
      throw new ConfigError(`Invalid config: models["${modelId}"].apiKeyEnv names ${model.apiKeyEnv}, which is not set in the environment.`);
    }
  }
  return createUpstreamEngine({
    baseUrl: model.baseUrl,
    model: model.model,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(model.connectTimeoutMs !== undefined ? { connectTimeoutMs: model.connectTimeoutMs } : {}),
    ...(model.firstTokenTimeoutMs !== undefined ? { firstTokenTimeoutMs: model.firstTokenTimeoutMs } : {}),
    ...(model.idleTimeoutMs !== undefined ? { idleTimeoutMs: model.idleTimeoutMs } : {}),
    ...(model.reasoning !== undefined ? { reasoning: model.reasoning } : {}),
    ...(model.passThrough !== undefined ? { passThrough: model.passThrough } : {}),
    ...(hooks.onUpstreamRequest !== undefined ? { onUpstreamRequest: hooks.onUpstreamRequest } : {}),
  });
}

/** What the server hands every upstream engine: the tracing hook, when traces are on. */
export interface EngineHooks {
  onUpstreamRequest?: UpstreamEngineOptions['onUpstreamRequest'];
}

/**
 * A model the config adds beside the four (decisions §9). It shows reasoning only when its
 * upstream is told to keep it: `auto` means "as the model does", and an added model does not.
 */
function addedModelInfo(id: string, model: ModelConfig): ModelInfo {
  return {
    id,
    requiresPlan: model.requiresPlan ?? null,
    reasoning: model.engine === 'upstream' && model.reasoning === 'keep',
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
): Promise<ConfiguredEngines> {
  const reference = createReferenceEngine(config.reference);
  const usesUpstream = Object.values(config.models).some((model) => model.engine === 'upstream');
  // Loaded only when a model needs it: it brings undici, which a reference-only server does not use.
  const createUpstreamEngine = usesUpstream ? (await import('@quantum-chat/engine-upstream')).createUpstreamEngine : undefined;
  const engines: Record<string, ChatEngine> = {};
  const summary: Record<string, string> = {};
  const builtinIds = new Set(builtinModels.map((model) => model.id));
  // The four first, in the spec's order; then the added ones, in the config's.
  const added = Object.entries(config.models).filter(([id]) => !builtinIds.has(id));
  const models = [...builtinModels, ...added.map(([id, model]) => addedModelInfo(id, model))];
  for (const { id } of models) {
    const chosen = config.models[id];
    if (chosen?.engine === 'upstream' && createUpstreamEngine !== undefined) {
      engines[id] = createUpstreamFromConfig(createUpstreamEngine, id, chosen, env, hooks);
      summary[id] = `upstream ${chosen.model} at ${chosen.baseUrl}`;
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
  return { registry, testEngine: reference, summary };
}
