// @quantum-chat/server: the ready server, its config and its CLI, for embedding and tests.

/** The server. */
export { createQuantumServer } from './create-server.js';
export type { QuantumServerOptions } from './create-server.js';
export type { StarterKeys } from './starter-keys.js';
export { createEngines } from './create-engines.js';
export type { ConfiguredEngines } from './create-engines.js';

/** The log destination the server writes through: lines in batches, for a Fastify of your own. */
export { createLogDestination } from './log-destination.js';
export type { LogDestination, LogDestinationOptions } from './log-destination.js';

/** Config: schema, defaults and loading. */
export { loadConfig, parseConfigFile, resolveConfig, ConfigError, defaultConfigFileName } from './config.js';
export type { LoadConfigOptions, LoadedConfig } from './config.js';
export { serverConfigFileSchema, modelConfigSchema, defaultServerConfig } from './config-schema.js';
export type { ServerConfig, ServerConfigFile, ModelConfig, UpstreamModelConfig } from './config-schema.js';

/** The CLI and its command registry. */
export { runCli } from './run-cli.js';
export { commands, defaultCommandName } from './commands/index.js';
export type { Command, CommandContext } from './commands/command.js';
