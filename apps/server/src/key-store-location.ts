import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createSqliteKeyStore, type KeyStore } from '@quantum-chat/access-control';
import type { ServerConfig } from './config-schema.js';

/** The key store's file in the data directory. */
export const keyStoreFileName = 'quantum-chat.sqlite';

/** Where the server keeps keys, organisations and usage: `<dataDir>/quantum-chat.sqlite`. */
export function keyStorePath(config: Pick<ServerConfig, 'dataDir'>, cwd: string): string {
  return join(resolve(cwd, config.dataDir), keyStoreFileName);
}

/**
 * Opens the server's SQLite key store, creating the data directory. Several server processes
 * and the CLI may open the same file at once (WAL).
 *
 * @example
 * const store = openKeyStore(config, process.cwd());
 */
export function openKeyStore(config: Pick<ServerConfig, 'dataDir'>, cwd: string): KeyStore {
  mkdirSync(resolve(cwd, config.dataDir), { recursive: true });
  return createSqliteKeyStore(keyStorePath(config, cwd));
}
