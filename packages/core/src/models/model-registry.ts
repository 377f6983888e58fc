import type { ChatEngine } from '../engine/chat-engine.js';
import type { Model, Plan } from '../schemas/model.js';
import { builtinModels, defaultOwnedBy, type ModelInfo } from './builtin-models.js';

/** A model the registry serves: its facts plus the engine that answers for it. */
export interface RegisteredModel extends ModelInfo {
  engine: ChatEngine;
}

export interface ModelRegistryOptions {
  /** The engine for every model that `engines` does not name. */
  engine: ChatEngine;
  /** Per-model engines, e.g. `{ 'quantum-flash': ollama }`. */
  engines?: Partial<Record<string, ChatEngine>>;
  /**
   * The models, in listing order; defaults to the four built-ins. Models of your own go after
   * the four (decisions §9): `[...builtinModels, { id: 'llama-3.1-8b', requiresPlan: null, reasoning: false, ownedBy: 'meta' }]`.
   */
  models?: readonly ModelInfo[];
  /** The `owned_by` of every model that does not name its own (one value for the four, spec 2.2). */
  ownedBy?: string;
}

export interface ModelRegistry {
  /** All models in listing order. */
  list(): readonly RegisteredModel[];
  /** A model by id, or `undefined`. */
  get(id: string): RegisteredModel | undefined;
  /**
   * The wire object of a model (spec 2.2), with `available` when a plan is known: false where
   * the plan, or the key's own `allowedModels` when given, does not allow it.
   */
  toModelObject(model: RegisteredModel, plan?: Plan, allowedModels?: readonly string[]): Model;
}

/** True when `plan` may use `model`. */
export function planAllows(model: ModelInfo, plan: Plan): boolean {
  return model.requiresPlan === null || model.requiresPlan === plan;
}

/**
 * Maps each model id to an engine.
 *
 * @example
 * const registry = createModelRegistry({ engine: createReferenceEngine(), engines: { 'quantum-flash': upstream } });
 */
export function createModelRegistry(options: ModelRegistryOptions): ModelRegistry {
  const ownedBy = options.ownedBy ?? defaultOwnedBy;
  const models = (options.models ?? builtinModels).map(
    (info): RegisteredModel => ({ ...info, engine: options.engines?.[info.id] ?? options.engine }),
  );
  const byId = new Map(models.map((model) => [model.id, model]));
  return {
    list: () => models,
    get: (id) => byId.get(id),
    toModelObject: (model, plan, allowedModels) => ({
      id: model.id,
      object: 'model',
      created: 0,
      owned_by: model.ownedBy ?? ownedBy,
      requires_plan: model.requiresPlan,
      ...(plan === undefined ? {} : { available: planAllows(model, plan) && (allowedModels === undefined || allowedModels.includes(model.id)) }),
    }),
  };
}
