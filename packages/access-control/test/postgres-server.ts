import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';

const run = promisify(execFile);

/** The directory holding `initdb` and `pg_ctl`: the PATH, else Debian's /usr/lib/postgresql/<newest>/bin. */
function findBinaries(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() !== '') return join(onPath.stdout.trim(), '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

const binaries = findBinaries();

/** True when PostgreSQL's server binaries are installed (Debian: `apt-get install postgresql`). */
export const postgresAvailable = binaries !== undefined;

/** Why PostgreSQL tests are skipped, printed once so that a skip is never silent. */
export const postgresSkipMessage = 'PostgreSQL is not installed: PostgreSQL tests are skipped (Debian/Ubuntu: apt-get install -y postgresql).';

/** initdb refuses to run as root: then the cluster belongs to the `postgres` system user. */
const asRoot = process.getuid?.() === 0;
const postgresUser = asRoot ? spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }) : undefined;

function command(name: string, args: string[]): [string, string[]] {
  const path = join(binaries!, name);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A PostgreSQL cluster of its own, in a temporary directory, on 127.0.0.1 and a free port. */
export interface PostgresServer {
  port: number;
  /** The URL of a database; `postgres` (always there) by default. */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: connections are closed). */
  stopServer(): Promise<void>;
  /**
   * Stops it as a crash would (`pg_ctl stop -m immediate`: every process quits at once, nothing
   * is written on the way out; the next start recovers from the WAL on disk).
   */
  crashServer(): Promise<void>;
  /** Starts it again on the same port and data. */
  startServer(): Promise<void>;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts a throw-away cluster: `initdb` (trust authentication, no fsync) then `pg_ctl start`
 * listening on 127.0.0.1 only, with fsync off unless `flushedCommits`. As root, both run as the `postgres` user in a directory it owns.
 *
 * @example
 * const server = await startPostgresServer();
 * onTestFinished(() => server.stop());
 * const store = createPostgresStore(await server.createDatabase());
 */
export async function startPostgresServer(options: { flushedCommits?: boolean } = {}): Promise<PostgresServer> {
  if (binaries === undefined) throw new Error(postgresSkipMessage);
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-pg-'));
  if (asRoot) {
    const uid = Number(postgresUser?.stdout.trim());
    if (!Number.isInteger(uid)) throw new Error('Running as root, but there is no `postgres` user to run initdb as.');
    chownSync(directory, uid, uid);
  }
  const data = join(directory, 'data');
  const port = await freePort();
  const exec = (name: string, args: string[]) => run(...command(name, args), { timeout: 60_000 });
  // Fast by default: nothing waits for the disk. `flushedCommits`: PostgreSQL's own defaults, each commit waiting for its WAL flush.
  const durability = options.flushedCommits ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const settings = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1${durability} -c max_connections=200`;
  const startServer = async () => {
    await exec('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-w', '-t', '60', '-o', settings, 'start']);
  };
  const stopServer = async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  try {
    await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await startServer();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let databases = 0;
  let running = true;
  return {
    port,
    url,
    async createDatabase() {
      const name = `quantum_chat_${++databases}`;
      const admin = postgres(url(), { max: 1, onnotice: () => undefined });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async stopServer() {
      await stopServer();
      running = false;
    },
    async crashServer() {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      running = false;
    },
    async startServer() {
      await startServer();
      running = true;
    },
    async stop() {
      try {
        if (running) await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      } finally {
        running = false;
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

/**
 * One cluster for the tests of the enclosing `describe`: started before them, stopped after.
 * Returns a getter, since the cluster exists only once they run.
 */
export function postgresServerForSuite(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => server!;
}
