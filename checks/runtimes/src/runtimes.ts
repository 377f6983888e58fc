import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

const require = createRequire(import.meta.url);

/** A runtime serving the case bundle on 127.0.0.1. */
export interface RunningRuntime {
  origin: string;
  /** What the runtime printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface Runtime {
  name: 'workerd' | 'bun' | 'deno';
  /** The binary the npm package installed, and its version line. */
  binary: string;
  start(bundle: string, workDirectory: string): Promise<RunningRuntime>;
}

/**
 * The native executable inside an npm package, where its postinstall put it (copied from the
 * platform package it depends on, e.g. `@oven/bun-linux-x64`): run directly, not through the
 * package's Node launcher script.
 */
function binaryOf(packageName: string, relativePath: string): string {
  return join(dirname(require.resolve(`${packageName}/package.json`)), relativePath);
}

/** Waits for the first line of `stream` that `parse` turns into a port. */
function waitForPort(child: ChildProcess, stream: Readable, parse: (line: string) => number | undefined, output: () => string, timeoutMs = 45_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`no port announced within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const port = parse(buffered.slice(0, newline).trim());
        buffered = buffered.slice(newline + 1);
        if (port !== undefined) {
          cleanup();
          resolve(port);
          return;
        }
      }
    };
    const onExit = (code: number | null, signal: string | null) => fail(new Error(`exited (${code ?? signal}) before listening`));
    function cleanup() {
      clearTimeout(timer);
      stream.off('data', onData);
      child.off('exit', onExit);
    }
    function fail(error: Error) {
      cleanup();
      reject(new Error(`${error.message}:\n${output()}`));
    }
    stream.on('data', onData);
    child.once('exit', onExit);
  });
}

function announcedPort(line: string): number | undefined {
  try {
    const value = JSON.parse(line) as { listening?: unknown };
    return typeof value.listening === 'number' ? value.listening : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `binary args` in `cwd`; resolves once it announced its port on stdout (or `portStream`). */
async function startProcess(
  binary: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; portFd?: number; parse: (line: string) => number | undefined },
): Promise<RunningRuntime> {
  const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe'];
  if (options.portFd !== undefined) stdio[options.portFd] = 'pipe';
  const child = spawn(binary, args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', HOME: options.cwd, ...options.env }, stdio });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  const output = () => printed.slice(-4000);
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const portStream = (options.portFd !== undefined ? child.stdio[options.portFd] : child.stdout) as Readable;
    const port = await waitForPort(child, portStream, options.parse, output);
    return { origin: `http://127.0.0.1:${port}`, output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Cloudflare's workerd, plain (no Node compatibility flag): the socket binds 127.0.0.1:0 and reports its port on a control descriptor. */
const workerd: Runtime = {
  name: 'workerd',
  binary: binaryOf('workerd', 'bin/workerd'),
  async start(bundle, workDirectory) {
    const config = join(workDirectory, 'workerd.capnp');
    // `embed` paths are relative to the config file.
    await copyFile(bundle, join(workDirectory, 'case-server.mjs'));
    await writeFile(
      config,
      [
        'using Workerd = import "/workerd/workerd.capnp";',
        'const config :Workerd.Config = (',
        '  services = [ (name = "cases", worker = .casesWorker) ],',
        '  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "cases") ],',
        ');',
        'const casesWorker :Workerd.Worker = (',
        '  modules = [ (name = "case-server.mjs", esModule = embed "case-server.mjs") ],',
        '  compatibilityDate = "2025-09-01",',
        ');',
        '',
      ].join('\n'),
    );
    return startProcess(this.binary, ['serve', config, '--control-fd=3'], {
      cwd: workDirectory,
      env: {},
      portFd: 3,
      parse: (line) => {
        try {
          const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
          return message.event === 'listen' && message.socket === 'http' ? message.port : undefined;
        } catch {
          return undefined;
        }
      },
    });
  },
};

/** Bun, run on the bundle in a directory of its own (no `.env` or `bunfig.toml` picked up, no transpiler cache). */
const bun: Runtime = {
  name: 'bun',
  binary: binaryOf('bun', 'bin/bun.exe'),
  start(bundle, workDirectory) {
    return startProcess(this.binary, ['run', '--no-install', bundle], {
      cwd: workDirectory,
      env: { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0', DO_NOT_TRACK: '1' },
      parse: announcedPort,
    });
  },
};

/** Deno, allowed nothing but the loopback network, its cache in the work directory. */
const deno: Runtime = {
  name: 'deno',
  binary: binaryOf('deno', 'deno'),
  start(bundle, workDirectory) {
    return startProcess(this.binary, ['run', '--no-config', '--no-lock', '--no-prompt', '--allow-net=127.0.0.1', bundle], {
      cwd: workDirectory,
      env: { DENO_DIR: join(workDirectory, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      parse: announcedPort,
    });
  },
};

export const runtimes: readonly Runtime[] = [workerd, bun, deno];
