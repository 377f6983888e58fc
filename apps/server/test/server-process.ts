import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliPath = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** A `quantum-chat serve` child process on 127.0.0.1 and a free port. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, parsed from what the process printed. */
  origin: string;
  /** The data directory (key store) the process uses. */
  dataDir: string;
  /** The test key of the `default` (elite) organisation, printed on stderr when the process seeded an empty store. */
  firstStartKey: string | undefined;
  child: ChildProcess;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches (logs are JSON lines). */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves once stderr matches. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or signal name) once the process ended. */
  exited: Promise<number | string>;
  /** Kills the process if it still runs and removes its temporary directory. */
  dispose(): Promise<void>;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`)), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Starts the built CLI (`node dist/cli.js serve --config <tmp file>`) with `HOST=127.0.0.1`
 * and `PORT=0`, and waits for the URL it prints.
 *
 * @example
 * const server = await startServerProcess({ shutdownGraceMs: 300 });
 * onTestFinished(() => server.dispose());
 */
export async function startServerProcess(config: Record<string, unknown> = {}, env: Record<string, string> = {}, args: readonly string[] = []): Promise<ServerProcess> {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the server first (pnpm turbo run build --filter=@quantum-chat/server...).`);
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-server-'));
  const configPath = join(directory, 'quantum-chat.config.json');
  const settings = { dataDir: join(directory, 'data'), ...config };
  writeFileSync(configPath, JSON.stringify(settings));
  const child = spawn(process.execPath, [cliPath, 'serve', '--config', configPath, ...args], {
    cwd: directory,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));

  function waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    const found = new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(stream === 'stdout' ? stdout : stderr)) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      check();
      void exited.then((code) => {
        listeners.delete(check);
        reject(new Error(`The server exited (${code}) before printing ${pattern}.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      });
    });
    return withTimeout(found, timeoutMs, `${pattern} on ${stream}`);
  }
  const waitForStdout = (pattern: RegExp, timeoutMs?: number) => waitFor('stdout', pattern, timeoutMs);
  const waitForStderr = (pattern: RegExp, timeoutMs?: number) => waitFor('stderr', pattern, timeoutMs);

  const dispose = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  };

  try {
    // Start-up loads a tokenizer and takes seconds on a busy machine.
    await waitForStdout(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Ctrl-C/, 30_000);
    // The banner says when a key was printed on stderr (the two pipes are read independently).
    if (stdout.includes('in the frame above')) await waitForStderr(/API key: qc_test_\w+/);
  } catch (error) {
    await dispose();
    throw error;
  }
  const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1]!;
  const firstStartKey = /API key: (qc_test_\w+)/.exec(stderr)?.[1];
  return { origin, dataDir: resolve(directory, String(settings.dataDir)), firstStartKey, child, stdout: () => stdout, stderr: () => stderr, waitForStdout, waitForStderr, exited, dispose };
}
