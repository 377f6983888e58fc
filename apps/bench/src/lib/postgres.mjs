// A throw-away PostgreSQL cluster for the ready-server rows: initdb + pg_ctl in a temporary
// directory, on 127.0.0.1 and a free port (as the `postgres` user when run as root, since
// initdb refuses root). Debian: apt-get install postgresql.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function binaries() {
  try {
    return join(execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim(), '..');
  } catch {
    const root = '/usr/lib/postgresql';
    if (!existsSync(root)) return undefined;
    const version = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))[0];
    return version === undefined ? undefined : join(root, version, 'bin');
  }
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a cluster; resolves with `{ url, stop() }`, or `undefined` when PostgreSQL is not installed. */
export async function startPostgres() {
  const bin = binaries();
  if (bin === undefined) return undefined;
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-bench-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(directory, uid, uid);
  }
  const exec = (name, args) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args));
  const data = join(directory, 'data');
  const port = await freePort();
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // Server-grade durability settings are not what is measured here: the store's own cost is.
  await exec('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-w', '-o', `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=100`, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
