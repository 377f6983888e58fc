// The store commands call the admin service, as the admin API does: one set of checks and one
// audit log for both. This file opens it and turns its refusals into CLI messages.
import { userInfo } from 'node:os';
import { QuantumChatError } from '@quantum-chat/core';
import { isAdminError } from '../admin/admin-errors.js';
import { createAdminService, type AdminActor, type AdminService } from '../admin/admin-service.js';
import { configuredModelIds } from '../admin/configured-model-ids.js';
import { openStore } from '../open-store.js';
import type { CommandContext } from './command.js';
import { CommandUsageError } from './command-arguments.js';
import { commandStoreConfig, type StoreValues } from './command-store.js';

/** Who runs the CLI, for the audit log: `cli:<system user>`. */
function cliActor(): AdminActor {
  try {
    return { actor: `cli:${userInfo().username}` };
  } catch {
    return { actor: 'cli' };
  }
}

/**
 * Runs `work` with the admin service over the store the config names (closed afterwards).
 * A refused input becomes a usage error naming the option (`--expires-at`), exit 2; a missing
 * or conflicting object a one-line failure, exit 1.
 *
 * @example
 * return withAdminService(values, context, { expires_at: 'expires-at' }, async (admin, by) => { ... });
 */
export async function withAdminService<T>(
  values: StoreValues,
  context: CommandContext,
  options: Readonly<Record<string, string>>,
  work: (admin: AdminService, by: AdminActor) => Promise<T>,
): Promise<T> {
  const config = commandStoreConfig(values, context);
  const store = openStore(config, context.cwd);
  try {
    return await work(createAdminService({ store, modelIds: configuredModelIds(config) }), cliActor());
  } catch (error) {
    throw toCommandError(error, options);
  } finally {
    await store.close();
  }
}

/** The option a wire parameter came from: `limits.tokens_per_day` → `--tokens-per-day`. */
function optionOf(param: string, options: Readonly<Record<string, string>>): string | undefined {
  const base = param.replace(/\[\d+\]$/u, '');
  return options[base] ?? options[base.split('.').at(-1)!];
}

function toCommandError(error: unknown, options: Readonly<Record<string, string>>): unknown {
  if (QuantumChatError.isInstance(error) && error.status === 400) {
    const option = error.param === null ? undefined : optionOf(error.param, options);
    const message = option === undefined ? error.message : error.message.replace(`'${error.param}'`, `--${option}`);
    return new CommandUsageError(message);
  }
  if (isAdminError(error)) return new Error(error.message);
  return error;
}
