// A copy of packages/access-control/test/redis-server.ts: test helpers are not published.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** True when a `redis-server` binary is on the PATH (Debian: `apt-get install redis-server`). */
export const redisServerAvailable = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** Why Redis tests are skipped, printed once so that a skip is never silent. */
export const redisSkipMessage = 'redis-server is not installed: Redis tests are skipped (Debian/Ubuntu: apt-get install -y redis-server).';

/** A `redis-server` child on 127.0.0.1 and a free port, with no persistence. */
export interface RedisServer {
  url: string;
  port: number;
  /** SIGKILL: the server is gone, connections reset. */
  kill(): Promise<void>;
  /** SIGSTOP: the server holds its connections but answers nothing. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** Starts a fresh server on the same port (after `kill`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port}: ${output}`)), 10_000);
    // Ready once it accepts a connection.
    const probe = setInterval(() => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        clearInterval(probe);
        clearTimeout(timer);
        resolve(child);
      });
      socket.on('error', () => socket.destroy());
    }, 25);
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearInterval(probe);
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
}

/**
 * Starts `redis-server --save '' --appendonly no` on a free 127.0.0.1 port.
 *
 * @example
 * const redis = await startRedisServer();
 * onTestFinished(() => redis.stop());
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child = await launch(port);
  const exited = (process: ChildProcess) =>
    process.exitCode !== null || process.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => process.once('exit', () => resolve()));
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async restart() {
      child = await launch(port);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}
