import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPostgresResponseStore, createPostgresStore, createSqliteResponseStore, createSqliteStore, type ServiceStore, type SqlResponseStore } from '@quantum-chat/access-control';
import type { ServerConfig } from './config-schema.js';

/** The SQLite store's file in the data directory. */
const keyStoreFileName = 'quantum-chat.sqlite';

/** Where the SQLite store lives: `<dataDir>/quantum-chat.sqlite`. */
function keyStorePath(config: Pick<ServerConfig, 'dataDir'>, cwd: string): string {
  return join(resolve(cwd, config.dataDir), keyStoreFileName);
}

/** Where the store is, for logs and CLI messages: a PostgreSQL URL without its password, or the SQLite file. */
export function describeStore(config: Pick<ServerConfig, 'dataDir' | 'databaseUrl'>, cwd: string): string {
  if (config.databaseUrl === undefined) return keyStorePath(config, cwd);
  try {
    const url = new URL(config.databaseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'postgresql';
  }
}

/**
 * Opens the store the config names: PostgreSQL when `databaseUrl` / `DATABASE_URL` is set
 * (what several hosts share), else SQLite in the data directory, which is created readable by
 * its owner only (0700; the database files are 0600). Servers and the CLI open the same one.
 *
 * @example
 * const store = openStore(config, process.cwd());
 * await store.migrate();
 */
export function openStore(config: Pick<ServerConfig, 'dataDir' | 'databaseUrl'>, cwd: string, options: { now?: () => number } = {}): ServiceStore {
  const clock = options.now !== undefined ? { now: options.now } : {};
  if (config.databaseUrl !== undefined) return createPostgresStore(config.databaseUrl, clock);
  const directory = resolve(cwd, config.dataDir);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // Also when it already existed: it holds key hashes and usage.
  chmodSync(directory, 0o700);
  return createSqliteStore(keyStorePath(config, cwd), clock);
}

/**
 * The Responses API's stored responses, in the database of the store `openStore` opened (sharing
 * its connection: close it before the store). Without a store of its own (an `accessControl`
 * passed in) the server keeps them in memory: the handler's default.
 */
export function openResponseStore(store: ServiceStore, config: Pick<ServerConfig, 'databaseUrl'>, options: { now?: () => number } = {}): SqlResponseStore {
  const clock = options.now !== undefined ? { now: options.now } : {};
  return config.databaseUrl !== undefined ? createPostgresResponseStore(store, clock) : createSqliteResponseStore(store, clock);
}
