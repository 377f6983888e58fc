import { builtinModels } from '@quantum-chat/core';
import type { ServerConfig } from '../config-schema.js';

/** The model ids a key may be limited to: the four of the spec, then those the config adds. */
export function configuredModelIds(config: Pick<ServerConfig, 'models'>): string[] {
  const builtin = builtinModels.map((model) => model.id);
  return [...builtin, ...Object.keys(config.models).filter((id) => !builtin.includes(id))];
}
