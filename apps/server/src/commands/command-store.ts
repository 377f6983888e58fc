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

/** A refusal of the command's arguments: runCli prints it with the usage and exits 2. */
export class CommandUsageError extends Error {
  readonly code = 'ERR_PARSE_ARGS_QUANTUM_CHAT';
}

/** Parses a limit value: a whole number, `none` (no limit) or `default` (the plan's). */
export function parseLimit(option: string, value: string | undefined): number | null | undefined {
  if (value === undefined || value === 'default') return undefined;
  if (value === 'none') return null;
  if (!/^\d+$/.test(value)) throw new CommandUsageError(`--${option} must be a whole number, 'none' or 'default', got '${value}'.`);
  return Number(value);
}

/** Checks a value against its allowed ones. */
export function oneOf<T extends string>(option: string, value: string | undefined, allowed: readonly T[], fallback?: T): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined || !(allowed as readonly string[]).includes(value)) {
    throw new CommandUsageError(`--${option} must be one of ${allowed.join(', ')}${value === undefined ? '' : `, got '${value}'`}.`);
  }
  return value as T;
}

/** Columns padded to their widest cell. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n';
}
