// A throw-away PostgreSQL cluster for the ready-server rows: initdb + pg_ctl in a temporary
// directory, on 127.0.0.1 and a free port (as the `postgres` user when run as root, since
// initdb refuses root). Debian: apt-get install postgresql.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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

const ticksPerSecond = 100;

/** utime, stime, cutime, cstime and the parent pid of a process, from /proc/<pid>/stat; undefined once it is gone. */
function procTimes(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), own: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond, children: (Number(fields[13]) + Number(fields[14])) / ticksPerSecond };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a whole cluster: the postmaster, its live backends and workers, and those
 * that exited (reaped, so counted in the postmaster's children times).
 */
function clusterCpuSeconds(postmasterPid) {
  const postmaster = procTimes(postmasterPid);
  if (postmaster === undefined) return Number.NaN;
  let total = postmaster.own + postmaster.children;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const times = procTimes(name);
    if (times !== undefined && times.ppid === postmasterPid) total += times.own;
  }
  return total;
}

/**
 * Starts a cluster; resolves with `{ url, cpuSeconds(), stop() }`, or `undefined` when
 * PostgreSQL is not installed. `cpu`: the core (a `taskset -c` list) the cluster runs on.
 */
export async function startPostgres({ cpu } = {}) {
  const bin = binaries();
  if (bin === undefined) return undefined;
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-bench-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(directory, uid, uid);
  }
  const command = (name, args) => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]] : [join(bin, name), args]);
  // Pinned when asked: the postmaster, and every backend it forks, inherit the affinity.
  const exec = (name, args) => {
    const [file, list] = command(name, args);
    return cpu === undefined ? run(file, list) : run('taskset', ['-c', cpu, file, ...list]);
  };
  const data = join(directory, 'data');
  const port = await freePort();
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // Server-grade durability settings are not what is measured here: the store's own cost is.
  await exec('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-w', '-o', `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=100`, 'start']);
  const postmasterPid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    cpu,
    /** User + system CPU seconds the cluster has used so far (10 ms resolution). */
    cpuSeconds: () => clusterCpuSeconds(postmasterPid),
    async stop() {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
