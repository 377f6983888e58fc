import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfigFileName, loadConfig } from '../config.js';
import { createQuantumServer } from '../create-server.js';
import { baseUrlOf, cliName, listeningBanner, noUsableKeyMessage, portInUseMessage, starterKeyMessage } from '../start-messages.js';
import type { Command } from './command.js';

const usage = `Usage: quantum-chat serve [--config <file>] [--host <host>] [--port <port>]

Starts the server: the playground at /, the API reference at /docs, the API at /v1 and
/compat/v1 (OpenAI stream format), GET /healthz. On the first start (an empty store) it makes
the organisation 'default' and prints one test key for it on stderr, once.
Stops gracefully on SIGTERM or SIGINT (a second signal ends open requests at once).

Options:
  --config <file>  Config file (else QUANTUM_CHAT_CONFIG, else ./quantum-chat.config.json if present)
  --host <host>    Address to listen on (overrides HOST and the config; default 127.0.0.1)
  --port <port>    Port to listen on (overrides PORT and the config; default 8080; 0 picks a free one)
  -h, --help       Show this help

Environment: HOST, PORT, LOG_LEVEL, QUANTUM_CHAT_CONFIG, REDIS_URL (shares rate limits between instances).
`;


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

/**
 * `quantum-chat serve`: the default command. Binds the port first, and only then makes the
 * first start's key (so a start that cannot bind loses nothing); prints the URLs once
 * listening; exits 0 after a graceful stop, 1 when the port is taken.
 */
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
    const app = await createQuantumServer(config, { env: context.env, cwd: context.cwd });
    app.log.info({ config: source ?? 'embedded defaults' }, 'config loaded');
    try {
      await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      const portInUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (portInUse) context.stderr.write(portInUseMessage(config.host, config.port, source ?? resolve(context.cwd, defaultConfigFileName)));
      // Nothing listens, and closing the store waits on its worker thread, which does not keep
      // the process alive by itself: hold it open until the close is done.
      const hold = setInterval(() => undefined, 1000);
      await app.close().finally(() => clearInterval(hold));
      if (!portInUse) throw error;
      return 1;
    }
    // Human messages go to stderr: stdout is the JSON log stream (and this banner).
    const cli = cliName(context.env);
    const keys = await app.prepareStarterKeys();
    if (keys.createdKey !== undefined) context.stderr.write(starterKeyMessage(keys.createdKey, cli));
    const storeOption = source === undefined ? '' : ` --config ${/\s/.test(source) ? JSON.stringify(source) : source}`;
    for (const organisation of keys.organisationsWithoutUsableKey) context.stderr.write(noUsableKeyMessage(organisation, cli, storeOption));
    context.stdout.write(listeningBanner(baseUrlOf(app.server.address() as AddressInfo), { starterKeyShown: keys.createdKey !== undefined }));
    await untilStopped(
      () => app.shutdownGracefully(),
      (signal) => app.log.info({ signal }, 'signal received'),
    );
    return 0;
  },
};
