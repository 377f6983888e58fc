// A node child process pinned to a core, spoken to over IPC with request/reply messages.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pinned } from './options.mjs';

let nextId = 1;

/**
 * Starts `script` under node, pinned to the `role`'s core, and waits for its `ready` message.
 * Returns `{ pid, ready, call(type, payload), stop() }`; `call` resolves with the child's reply.
 */
export async function startChild(script, { role, args = [], nodeFlags = [], env = {}, readyTimeoutMs = 30_000, stdout = 'inherit' } = {}) {
  const { command, args: commandArgs } = pinned(role, process.execPath, [...nodeFlags, script, ...args]);
  const child = spawn(command, commandArgs, {
    // `stdout: 'ignore'`: the child's stdout is /dev/null (a server's logs, written as in production).
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const pending = new Map();
  let exited = false;
  child.on('message', (message) => {
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.error !== undefined) waiter.reject(new Error(`${script}: ${message.error}`));
    else waiter.resolve(message.result);
  });
  const exitPromise = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = true;
      for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited (${code ?? signal})`));
      pending.clear();
      resolve();
    });
  });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start`)), readyTimeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      if (message.type === 'ready') resolve(message);
      else reject(new Error(`${script}: unexpected first message ${JSON.stringify(message)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready`));
    });
  });
  return {
    pid: child.pid,
    ready,
    call(type, payload = {}) {
      if (exited) return Promise.reject(new Error(`${script} has exited`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, type, ...payload });
      });
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}

/**
 * The child side: sends `ready` (with `info`), then answers each request with
 * `handlers[type](message)`; the value or error goes back with the request's id.
 */
export function serveParent(handlers, info = {}) {
  process.on('message', async (message) => {
    const handler = handlers[message.type];
    try {
      if (handler === undefined) throw new Error(`unknown request ${message.type}`);
      const result = await handler(message);
      process.send({ id: message.id, result });
    } catch (error) {
      process.send({ id: message.id, error: error instanceof Error ? error.stack ?? error.message : String(error) });
    }
  });
  // The parent going away (a crashed orchestrator) takes this child with it.
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', ...info });
}

const ticksPerSecond = 100;

/** User + system CPU seconds from a /proc stat file's text. */
function statCpuSeconds(stat) {
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** User + system CPU seconds of any process, all its threads, from /proc/<pid>/stat (10 ms resolution). */
export const procCpuSeconds = (pid) => statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** The same of one of its threads, from /proc/<pid>/task/<tid>/stat. */
export const procThreadCpuSeconds = (pid, tid) => statCpuSeconds(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));

/** The same of its main thread (the one whose id is the process's): a Node process's event loop. */
export const procMainThreadCpuSeconds = (pid) => procThreadCpuSeconds(pid, pid);

/** Resident set size of any process in bytes, from /proc/<pid>/status. */
export function procRssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}
