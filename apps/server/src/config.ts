import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as z from 'zod';
import { adminTokenSecret, defaultServerConfig, metricsTokenSecret, serverConfigFileSchema, type OverloadSettings, type ServerConfig, type ServerConfigFile } from './config-schema.js';

/** The file looked for in the working directory when neither `--config` nor the env var names one. */
export const defaultConfigFileName = 'quantum-chat.config.json';

/** A config that cannot be used; the message names the file and every field at fault. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** From `--config <file>`; wins over `QUANTUM_CHAT_CONFIG`. */
  configPath?: string | undefined;
  /** `QUANTUM_CHAT_CONFIG`, `HOST`, `PORT` and `LOG_LEVEL` are read from here. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative paths and `./quantum-chat.config.json` are resolved. */
  cwd?: string;
}

export interface LoadedConfig {
  config: ServerConfig;
  /** The absolute path of the file read, or `undefined` when only the embedded defaults apply. */
  source: string | undefined;
}

/** A zod path written the JavaScript way: `models["quantum-flash"].baseUrl`, `signingSecrets[0]`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(root)' : out;
}

function describeIssues(where: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    // "required" says more than zod's "expected string, received undefined".
    const message = issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined ? 'required' : issue.message;
    return `  - ${formatPath(issue.path)}: ${message}`;
  });
  return `Invalid config in ${where}:\n${lines.join('\n')}`;
}

/** Validates a parsed config file; throws a `ConfigError` naming each bad field. */
export function parseConfigFile(value: unknown, where = 'the config'): ServerConfigFile {
  const result = serverConfigFileSchema.safeParse(value, { reportInput: true });
  if (!result.success) throw new ConfigError(describeIssues(where, result.error));
  return result.data;
}

/** The admin tokens: `adminTokens`, plus the one token (`QUANTUM_CHAT_ADMIN_TOKEN`, else `adminToken`) as id `default`. */
function adminTokensOf(file: ServerConfigFile, env: Readonly<Record<string, string | undefined>>): ServerConfig['adminTokens'] {
  const tokens = (file.adminTokens ?? []).map((token) => ({ ...token }));
  const fromEnv = env.QUANTUM_CHAT_ADMIN_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    const checked = adminTokenSecret.safeParse(fromEnv);
    if (!checked.success) throw new ConfigError(`Invalid environment: QUANTUM_CHAT_ADMIN_TOKEN: ${checked.error.issues[0]!.message}.`);
  }
  const single = fromEnv || file.adminToken;
  if (single !== undefined) {
    if (tokens.some((token) => token.id === 'default')) throw new ConfigError("Invalid config: adminTokens has an id 'default', which the single admin token (adminToken or QUANTUM_CHAT_ADMIN_TOKEN) takes.");
    tokens.push({ id: 'default', token: single });
  }
  return tokens;
}

/** `QUANTUM_CHAT_METRICS_TOKEN`, else the file's `metricsToken`, as a config field. */
function metricsTokenOf(file: ServerConfigFile, env: Readonly<Record<string, string | undefined>>): Pick<ServerConfig, 'metricsToken'> {
  const fromEnv = env.QUANTUM_CHAT_METRICS_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    const checked = metricsTokenSecret.safeParse(fromEnv);
    if (!checked.success) throw new ConfigError(`Invalid environment: QUANTUM_CHAT_METRICS_TOKEN: ${checked.error.issues[0]!.message}.`);
  }
  const token = fromEnv || file.metricsToken;
  return token === undefined ? {} : { metricsToken: token };
}

const logLevels = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Applies the environment (`HOST`, `PORT`, `LOG_LEVEL`, `REDIS_URL`, `DATABASE_URL`, `QUANTUM_CHAT_DATA_DIR`, `QUANTUM_CHAT_ADMIN_TOKEN`, `QUANTUM_CHAT_METRICS_TOKEN`, `QUANTUM_CHAT_REQUEST_TIMEOUT_MS`) and the defaults to a validated file. */
export function resolveConfig(file: ServerConfigFile, env: Readonly<Record<string, string | undefined>> = {}): ServerConfig {
  const defaults = defaultServerConfig;
  const config: ServerConfig = {
    host: file.host ?? defaults.host,
    port: file.port ?? defaults.port,
    logLevel: file.logLevel ?? defaults.logLevel,
    ownedBy: file.ownedBy,
    dataDir: env.QUANTUM_CHAT_DATA_DIR || file.dataDir || defaults.dataDir,
    databaseUrl: env.DATABASE_URL || file.databaseUrl,
    store: { ...defaults.store, ...file.store },
    redisUrl: env.REDIS_URL || file.redisUrl,
    limits: { ...defaults.limits, ...file.limits },
    keepAliveIntervalMs: file.keepAliveIntervalMs,
    streams: { ...defaults.streams, ...file.streams },
    responses: { ...defaults.responses, ...file.responses },
    requestTimeoutMs: file.requestTimeoutMs ?? defaults.requestTimeoutMs,
    metrics: file.metrics ?? defaults.metrics,
    ...metricsTokenOf(file, env),
    ...(file.cors !== undefined
      ? { cors: { origins: file.cors.origins, credentials: file.cors.credentials ?? false, maxAgeSeconds: file.cors.maxAgeSeconds ?? 600 } }
      : {}),
    overload: file.overload === false ? false : { ...(defaults.overload as OverloadSettings), ...file.overload },
    shutdownGraceMs: file.shutdownGraceMs ?? defaults.shutdownGraceMs,
    signingSecrets: [...(file.signingSecrets ?? defaults.signingSecrets)],
    requireSignatures: file.requireSignatures ?? defaults.requireSignatures,
    adminTokens: adminTokensOf(file, env),
    adminTokenFailuresPerMinute: file.adminTokenFailuresPerMinute ?? defaults.adminTokenFailuresPerMinute,
    reference: { ...defaults.reference, ...file.reference },
    models: { ...defaults.models, ...file.models },
  };
  if (env.HOST !== undefined && env.HOST !== '') config.host = env.HOST;
  if (env.PORT !== undefined && env.PORT !== '') {
    const port = Number(env.PORT);
    if (!/^\d+$/.test(env.PORT) || port > 65_535) throw new ConfigError(`Invalid environment: PORT must be an integer from 0 to 65535, got '${env.PORT}'.`);
    config.port = port;
  }
  if (config.databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    throw new ConfigError('Invalid environment: DATABASE_URL must be a postgres:// or postgresql:// URL.');
  }
  if (config.redisUrl !== undefined && !/^rediss?:\/\//.test(config.redisUrl)) {
    throw new ConfigError('Invalid environment: REDIS_URL must be a redis:// or rediss:// URL.');
  }
  const requestTimeout = env.QUANTUM_CHAT_REQUEST_TIMEOUT_MS;
  if (requestTimeout !== undefined && requestTimeout !== '') {
    if (!/^\d+$/.test(requestTimeout) || Number(requestTimeout) > 86_400_000) {
      throw new ConfigError(`Invalid environment: QUANTUM_CHAT_REQUEST_TIMEOUT_MS must be a whole number of milliseconds (0 turns the timeout off), got '${requestTimeout}'.`);
    }
    config.requestTimeoutMs = Number(requestTimeout);
  }
  const retentionDays = env.QUANTUM_CHAT_RESPONSES_RETENTION_DAYS;
  if (retentionDays !== undefined && retentionDays !== '') {
    if (!/^\d+$/.test(retentionDays) || Number(retentionDays) < 1 || Number(retentionDays) > 3650) {
      throw new ConfigError(`Invalid environment: QUANTUM_CHAT_RESPONSES_RETENTION_DAYS must be a whole number of days from 1 to 3650, got '${retentionDays}'.`);
    }
    config.responses.retentionDays = Number(retentionDays);
  }
  const requireSignatures = env.QUANTUM_CHAT_REQUIRE_SIGNATURES;
  if (requireSignatures !== undefined && requireSignatures !== '') {
    if (!/^(true|false|1|0)$/u.test(requireSignatures)) throw new ConfigError(`Invalid environment: QUANTUM_CHAT_REQUIRE_SIGNATURES must be true or false, got '${requireSignatures}'.`);
    config.requireSignatures = requireSignatures === 'true' || requireSignatures === '1';
  }
  if (config.requireSignatures && config.signingSecrets.length === 0) {
    throw new ConfigError('Invalid config: requireSignatures needs signingSecrets (no request could be signed without a secret).');
  }
  if (env.LOG_LEVEL !== undefined && env.LOG_LEVEL !== '') {
    if (!logLevels.has(env.LOG_LEVEL)) throw new ConfigError(`Invalid environment: LOG_LEVEL must be one of ${[...logLevels].join(', ')}, got '${env.LOG_LEVEL}'.`);
    config.logLevel = env.LOG_LEVEL as ServerConfig['logLevel'];
  }
  return config;
}

/** Which file to read: `--config`, then `QUANTUM_CHAT_CONFIG`, then `./quantum-chat.config.json` if present. */
function findConfigFile(options: LoadConfigOptions, cwd: string): { path: string; origin: string } | undefined {
  if (options.configPath !== undefined) return { path: resolve(cwd, options.configPath), origin: '--config' };
  const fromEnv = options.env?.QUANTUM_CHAT_CONFIG;
  if (fromEnv !== undefined && fromEnv !== '') return { path: resolve(cwd, fromEnv), origin: 'QUANTUM_CHAT_CONFIG' };
  const local = resolve(cwd, defaultConfigFileName);
  return existsSync(local) ? { path: local, origin: 'the working directory' } : undefined;
}

/**
 * Loads the server config: the file (if any), validated with zod, then `HOST`, `PORT` and
 * `LOG_LEVEL` from the environment, then the embedded defaults.
 *
 * @example
 * const { config, source } = loadConfig({ configPath: argv.config, env: process.env });
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? {};
  const file = findConfigFile(options, cwd);
  if (file === undefined) return { config: resolveConfig({}, env), source: undefined };
  let text: string;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new ConfigError(`Cannot read the config file ${file.path} (named by ${file.origin}): ${reason}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`The config file ${file.path} is not valid JSON: ${(error as Error).message}`);
  }
  return { config: resolveConfig(parseConfigFile(value, file.path), env), source: file.path };
}
