import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { builtinModels } from '@quantum-chat/core';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config-schema.js';
import { defaultConfigFileName, loadConfig } from '../config.js';
import { createQuantumServer } from '../create-server.js';
import { baseUrlOf, cliName, listeningBanner, localModelBanner, noUsableKeyMessage, portInUseMessage, starterKeyMessage } from '../start-messages.js';
import type { Command, CommandContext } from './command.js';

const usage = `Usage: quantum-chat serve [--config <file>] [--host <host>] [--port <port>] [--model <file.gguf>]

Starts the server: the playground at /, the API reference at /docs, the API at /v1 and
/compat/v1 (OpenAI stream format), GET /healthz. On the first start (an empty store) it makes
the organisation 'default' and prints one test key for it on stderr, once.
Stops gracefully on SIGTERM or SIGINT (a second signal ends open requests at once).

Options:
  --config <file>  Config file (else QUANTUM_CHAT_CONFIG, else ./quantum-chat.config.json if present)
  --host <host>    Address to listen on (overrides HOST and the config; default 127.0.0.1)
  --port <port>    Port to listen on (overrides PORT and the config; default 8080; 0 picks a free one)
  --model <gguf>   Serve the four models from this GGUF file in-process, on llama.cpp (needs
                   node-llama-cpp installed); hf:<user>/<repo>/<file>.gguf downloads it once
                   into the data directory. Live keys use it; test keys keep the reference engine.
  -h, --help       Show this help

Environment: HOST, PORT, LOG_LEVEL, QUANTUM_CHAT_CONFIG, QUANTUM_CHAT_MODEL (as --model),
REDIS_URL (shares rate limits between instances).
`;


/**
 * SIGTERM and SIGINT, watched from the start of `serve`: a signal that arrives while the
 * server starts (between binding the port and printing the banner, say) is held and acted on
 * as soon as the server can shut down gracefully, instead of Node's default of ending the
 * process outright.
 */
function watchStopSignals() {
  const held: NodeJS.Signals[] = [];
  let act: ((signal: NodeJS.Signals) => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => (act === undefined ? held.push(signal) : act(signal));
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const dispose = () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  return {
    /** A signal came before the server was listening. */
    get received(): boolean {
      return held.length > 0;
    },
    dispose,
    /**
     * Resolves at the first signal (at once for one already held), once `shutdown` is done; a
     * second signal calls `shutdown` again (which ends open requests at once).
     */
    until(shutdown: () => Promise<void>, log: (signal: string) => void): Promise<void> {
      return new Promise((resolve, reject) => {
        act = (signal) => {
          log(signal);
          shutdown().then(() => {
            dispose();
            resolve();
          }, reject);
        };
        for (const signal of held.splice(0)) act(signal);
      });
    },
  };
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
        model: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const env = { ...context.env, ...(values.host !== undefined ? { HOST: values.host } : {}), ...(values.port !== undefined ? { PORT: values.port } : {}) };
    const { config, source } = loadConfig({ configPath: values.config, env, cwd: context.cwd });
    const model = values.model ?? (context.env.QUANTUM_CHAT_MODEL || undefined);
    if (model !== undefined) serveModelFile(config, model);
    const signals = watchStopSignals();
    try {
      return await serve(config, source, context, signals);
    } finally {
      signals.dispose();
    }
  },
};

/** `--model`: the four models answered by the file (each keeps its own reasoning flag and plans). */
function serveModelFile(config: ServerConfig, file: string): void {
  const models = { ...config.models };
  for (const { id } of builtinModels) {
    const configured = models[id];
    // Settings the config gives a local model of that id (context size, GPU layers) stay.
    models[id] = configured?.engine === 'llama' ? { ...configured, file } : { engine: 'llama', file };
  }
  config.models = models;
}

/**
 * Waits for the local models to load, saying what each is (file, size, CPU or GPU) once it
 * is; a model that cannot load is said in one sentence and the server stops (exit 1).
 */
async function awaitLocalModels(app: FastifyInstance, context: CommandContext): Promise<boolean> {
  for (const local of app.localModels) {
    context.stdout.write(`Loading ${local.file} for ${local.ids.join(', ')}; /readyz answers 503 until it is loaded.\n`);
  }
  const results = await Promise.all(
    app.localModels.map(async (local) => {
      try {
        context.stdout.write(localModelBanner(await local.engine.ready, local.ids));
        return true;
      } catch (error) {
        context.stderr.write(`quantum-chat serve: ${(error as Error).message}\n`);
        return false;
      }
    }),
  );
  return results.every(Boolean);
}

async function serve(config: ServerConfig, source: string | undefined, context: CommandContext, signals: ReturnType<typeof watchStopSignals>): Promise<number> {
  const app = await createQuantumServer(config, { env: context.env, cwd: context.cwd, progress: (text) => context.stderr.write(text) });
  app.log.info({ config: source ?? 'embedded defaults' }, 'config loaded');
  // Stopped while it was being built: nothing listens yet, nothing to drain.
  if (signals.received) {
    await closeWithoutListening(app);
    return 0;
  }
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const portInUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (portInUse) context.stderr.write(portInUseMessage(config.host, config.port, source ?? resolve(context.cwd, defaultConfigFileName)));
    await closeWithoutListening(app);
    if (!portInUse) throw error;
    return 1;
  }
  // Human messages go to stderr: stdout is the JSON log stream (and this banner).
  const cli = cliName(context.env, context.scriptPath);
  const keys = await app.prepareStarterKeys();
  if (keys.createdKey !== undefined) context.stderr.write(starterKeyMessage(keys.createdKey, cli));
  const storeOption = source === undefined ? '' : ` --config ${/\s/.test(source) ? JSON.stringify(source) : source}`;
  for (const organisation of keys.organisationsWithoutUsableKey) context.stderr.write(noUsableKeyMessage(organisation, cli, storeOption));
  context.stdout.write(listeningBanner(baseUrlOf(app.server.address() as AddressInfo), { starterKeyShown: keys.createdKey !== undefined }));
  if (!(await awaitLocalModels(app, context))) {
    await app.shutdownGracefully();
    return 1;
  }
  await signals.until(
    () => app.shutdownGracefully(),
    (signal) => app.log.info({ signal }, 'signal received'),
  );
  return 0;
}

/**
 * Closes a server that is not listening. Closing the store waits on its worker thread, which
 * does not keep the process alive by itself: hold it open until the close is done.
 */
async function closeWithoutListening(app: FastifyInstance): Promise<void> {
  const hold = setInterval(() => undefined, 1000);
  await app.close().finally(() => clearInterval(hold));
}
