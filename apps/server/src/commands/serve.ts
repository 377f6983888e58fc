import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createQuantumServer } from '../create-server.js';
import type { Command } from './command.js';

const usage = `Usage: quantum-chat serve [--config <file>] [--host <host>] [--port <port>]

Starts the server: /v1 and /compat/v1 (OpenAI stream format), GET /healthz.
Stops gracefully on SIGTERM or SIGINT (a second signal ends open requests at once).

Options:
  --config <file>  Config file (else QUANTUM_CHAT_CONFIG, else ./quantum-chat.config.json if present)
  --host <host>    Address to listen on (overrides HOST and the config; default 127.0.0.1)
  --port <port>    Port to listen on (overrides PORT and the config; default 8080; 0 picks a free one)
  -h, --help       Show this help

Environment: HOST, PORT, LOG_LEVEL, QUANTUM_CHAT_CONFIG, REDIS_URL (shares rate limits between instances).
`;

/** Shown once, when the server seeded an empty store; the key is on a line of its own. */
function firstStartMessage(key: string): string {
  return `Created organisation 'default' (elite plan) with a test API key. It is shown only this once; store it now:\n  API key: ${key}\n`;
}

/** The base URL of a listening address; IPv6 hosts are bracketed. */
function baseUrlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Resolves at the first SIGTERM/SIGINT, once the server has shut down gracefully. */
function untilStopped(shutdown: () => Promise<void>, log: (signal: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log(signal);
      shutdown().then(() => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        resolve();
      }, reject);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** `quantum-chat serve`: the default command. Prints the URL once listening; exits 0 after a graceful stop. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the server (the default command)',
  usage,
  async run(args, context) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const env = { ...context.env, ...(values.host !== undefined ? { HOST: values.host } : {}), ...(values.port !== undefined ? { PORT: values.port } : {}) };
    const { config, source } = loadConfig({ configPath: values.config, env, cwd: context.cwd });
    const app = await createQuantumServer(config, { env: context.env, cwd: context.cwd, onFirstStartKey: (key) => context.stdout.write(firstStartMessage(key)) });
    app.log.info({ config: source ?? 'embedded defaults' }, 'config loaded');
    await app.listen({ host: config.host, port: config.port });
    const baseUrl = baseUrlOf(app.server.address() as AddressInfo);
    context.stdout.write(`Quantum chat server listening on ${baseUrl}\n  ${baseUrl}/v1\n  ${baseUrl}/compat/v1 (OpenAI stream format)\n`);
    await untilStopped(
      () => app.shutdownGracefully(),
      (signal) => app.log.info({ signal }, 'signal received'),
    );
    return 0;
  },
};
