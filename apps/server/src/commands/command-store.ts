import type { KeyStore } from '@quantum-chat/access-control';
import { loadConfig } from '../config.js';
import { openKeyStore } from '../key-store-location.js';
import type { CommandContext } from './command.js';

/** The options every store command takes to find the store. */
export const storeOptions = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

export const storeOptionsUsage = `  --config <file>        Config file, for its dataDir (else QUANTUM_CHAT_CONFIG, else ./quantum-chat.config.json)
  --data-dir <dir>       The data directory (overrides the config; default .data)`;

/**
 * Opens the key store the server in the same place would use: `<dataDir>/quantum-chat.sqlite`.
 * Safe while servers run on it (SQLite WAL).
 */
export function openCommandStore(values: { config?: string | undefined; 'data-dir'?: string | undefined }, context: CommandContext): KeyStore {
  const dataDir = values['data-dir'] ?? loadConfig({ configPath: values.config, env: context.env, cwd: context.cwd }).config.dataDir;
  return openKeyStore({ dataDir }, context.cwd);
}
