import type { ServerConfig } from '../config-schema.js';
import { loadConfig } from '../config.js';
import type { CommandContext } from './command.js';

/** The options every store command takes to find the store. */
export const storeOptions = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
} as const;

export const storeOptionsUsage = `  --config <file>        Config file, for its databaseUrl or dataDir (else QUANTUM_CHAT_CONFIG, else ./quantum-chat.config.json)
  --database-url <url>   The PostgreSQL store (overrides DATABASE_URL and the config)
  --data-dir <dir>       The SQLite store's directory (overrides QUANTUM_CHAT_DATA_DIR and the config; default .data)`;

export type StoreValues = { config?: string | undefined; 'data-dir'?: string | undefined; 'database-url'?: string | undefined };

/** Where the store is: the same config (file, then environment) as the server's, then the options. */
export function commandStoreConfig(values: StoreValues, context: CommandContext): ServerConfig {
  const env = {
    ...context.env,
    ...(values['data-dir'] !== undefined ? { QUANTUM_CHAT_DATA_DIR: values['data-dir'] } : {}),
    ...(values['database-url'] !== undefined ? { DATABASE_URL: values['database-url'] } : {}),
  };
  const { config } = loadConfig({ configPath: values.config, env, cwd: context.cwd });
  // --data-dir names SQLite explicitly, even when DATABASE_URL is set in the environment.
  if (values['data-dir'] !== undefined && values['database-url'] === undefined) delete config.databaseUrl;
  return config;
}
