import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliPath = fileURLToPath(new URL('../../../../apps/server/dist/cli.js', import.meta.url));

/** The real `quantum-chat serve` process on 127.0.0.1 and a free port, with a store of its own. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, as the process printed it. */
  origin: string;
  /** The test key of the `default` (elite) organisation, printed on the first start. */
  testKey: string;
  /** Runs `quantum-chat <args> --data-dir <its data dir>` and returns the last line of stdout (a new key). */
  cli(args: string[]): Promise<string>;
  dispose(): Promise<void>;
}

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Starts `node apps/server/dist/cli.js serve` with `HOST=127.0.0.1`, `PORT=0` and a temporary
 * data directory and config, and reads the URL and the first-start test key from its stdout.
 *
 * @example
 * const server = await startServerProcess({ reference: { tokensPerSecond: 40 } });
 * onTestFinished(() => server.dispose());
 */
export interface StartOptions {
  /**
   * Runs on the data directory before the server starts (a store seeded with history). A
   * seeded store has organisations, so the server prints no first-start key: `testKey` is ''.
   */
  beforeStart?: (dataDir: string) => Promise<void>;
}

export async function startServerProcess(config: Record<string, unknown> = {}, options: StartOptions = {}): Promise<ServerProcess> {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the server first (pnpm turbo run build --filter=@quantum-chat/server...).`);
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-web-'));
  const dataDir = join(directory, 'data');
  const configPath = join(directory, 'quantum-chat.config.json');
  writeFileSync(configPath, JSON.stringify({ dataDir, logLevel: 'warn', ...config }));
  if (options.beforeStart !== undefined) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      await options.beforeStart(dataDir);
    } catch (error) {
      rmSync(directory, { recursive: true, force: true });
      throw error;
    }
  }
  const child = run(['serve', '--config', configPath], { HOST: '127.0.0.1', PORT: '0' });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = once(child, 'exit');

  const dispose = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  };

  const started = new Promise<{ origin: string; testKey: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The server did not print its URL within 30 s.\nstdout:\n${stdout}\nstderr:\n${stderr}`)), 30_000);
    // The first start's key is on stderr, written before the banner (the pipes are read independently).
    const check = () => {
      const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/u.exec(stdout)?.[1];
      const testKey = options.beforeStart !== undefined ? '' : /API key: (qc_test_\w+)/u.exec(stderr)?.[1];
      if (origin === undefined || testKey === undefined) return;
      clearTimeout(timer);
      resolve({ origin, testKey });
    };
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      check();
    });
    child.stderr!.on('data', check);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`The server exited (${String(code)}) before listening.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
  });
  try {
    const { origin, testKey } = await started;
    const cli = async (args: string[]) => {
      const command = run([...args, '--data-dir', dataDir], {});
      let output = '';
      let errors = '';
      command.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
      command.stderr!.setEncoding('utf8').on('data', (text: string) => (errors += text));
      const [code] = (await once(command, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`quantum-chat ${args.join(' ')} exited with ${String(code)}: ${errors}`);
      return output.trimEnd().split('\n').at(-1)!.trim();
    };
    return { origin, testKey, cli, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
