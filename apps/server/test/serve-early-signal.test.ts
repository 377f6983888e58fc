import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const cliPath = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** How one start ended when SIGTERM came the moment it was listening. */
interface EarlyStop {
  exit: number | string;
  stdout: string;
}

/** A port that is free now (the server binds it a moment later; never a fixed port). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves true once a TCP connection to the port succeeds. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `quantum-chat serve` on a fresh store and sends SIGTERM the moment its port accepts a
 * connection: the listening line is printed then (the log is written in batches, so the line
 * itself may show up later than a signal sent after it).
 */
async function stopRightAfterListening(directory: string): Promise<EarlyStop> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliPath, 'serve'], {
    cwd: directory,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', QUANTUM_CHAT_DATA_DIR: join(directory, 'data') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  let running = true;
  void exited.then(() => (running = false));
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  while (running && !(await accepts(port))) await new Promise((resolve) => setTimeout(resolve, 2));
  if (running) child.kill('SIGTERM');
  const exit = await exited;
  clearTimeout(timer);
  return { exit, stdout };
}

describe('quantum-chat serve, stopped at once', () => {
  it('should shut down gracefully (exit 0) when SIGTERM comes the moment it listens, every time', async () => {
    const runs = 8;
    const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-early-signal-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const outcomes: EarlyStop[] = [];
    // Two at a time: each start is a fresh store (the first start's key is made in the window).
    for (let index = 0; index < runs; index += 2) {
      const pair = [index, index + 1].map((run) => stopRightAfterListening(mkdtempSync(join(directory, `run-${run}-`))));
      outcomes.push(...(await Promise.all(pair)));
    }
    const exits = outcomes.map((outcome) => outcome.exit);
    console.log(`exits of ${runs} starts stopped the moment they listened: ${exits.join(', ')}`);
    expect(exits).toEqual(Array.from({ length: runs }, () => 0));
    for (const outcome of outcomes) expect(outcome.stdout).toContain('shutdown complete');
  }, 240_000);
});
