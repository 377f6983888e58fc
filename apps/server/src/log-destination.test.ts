import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogDestination } from './log-destination.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function logFile() {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-log-'));
  const path = join(directory, 'log');
  const fd = openSync(path, 'w');
  cleanups.push(() => {
    closeSync(fd);
    rmSync(directory, { recursive: true, force: true });
  });
  return { fd, read: () => readFileSync(path, 'utf8') };
}

/** Polls until `check` passes or the time is up. */
async function eventually(check: () => void, timeoutMs = 2000): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > giveUp) throw error;
      await sleep(10);
    }
  }
}

describe('createLogDestination', () => {
  it('should hold lines for the delay, then write them all, unchanged and in order', async () => {
    const file = logFile();
    const destination = createLogDestination({ fd: file.fd, flushDelayMs: 150 });
    cleanups.push(() => destination.close());
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    await sleep(50);
    expect(file.read()).toBe('');
    await eventually(() => expect(file.read()).toBe('{"n":1}\n{"n":2}\n'));
    destination.write('{"n":3}\n');
    await eventually(() => expect(file.read()).toBe('{"n":1}\n{"n":2}\n{"n":3}\n'));
  });

  it('should write at once when the held lines reach the buffer size', async () => {
    const file = logFile();
    const destination = createLogDestination({ fd: file.fd, bufferSize: 64, flushDelayMs: 60_000 });
    cleanups.push(() => destination.close());
    const lines = Array.from({ length: 10 }, (_, index) => `{"line":${index},"text":"${'x'.repeat(20)}"}\n`);
    for (const line of lines) destination.write(line);
    // Everything but what is still under the threshold is out, long before the delay.
    await eventually(() => expect(file.read().length).toBeGreaterThan(lines.join('').length - 64));
    destination.flush();
    await eventually(() => expect(file.read()).toBe(lines.join('')));
  });

  it('should keep every character of lines beyond Latin-1, and a line longer than the buffer in its place', async () => {
    const file = logFile();
    const destination = createLogDestination({ fd: file.fd, bufferSize: 40, flushDelayMs: 60_000 });
    cleanups.push(() => destination.close());
    // Three-byte and four-byte (a surrogate pair) characters, near and across the buffer's end.
    const lines = ['{"key":"qc_live_…JD3h"}\n', '{"n":"ascii"}\n', `{"long":"${'é🙂'.repeat(20)}"}\n`, '{"after":"…"}\n', `{"fill":"${'€'.repeat(9)}"}\n`];
    for (const line of lines) destination.write(line);
    destination.flush();
    await eventually(() => expect(file.read()).toBe(lines.join('')));
  });

  it('should flush on close and write later lines straight through', async () => {
    const file = logFile();
    const destination = createLogDestination({ fd: file.fd, flushDelayMs: 60_000 });
    destination.write('a\n');
    destination.close();
    destination.write('b\n');
    await eventually(() => expect(file.read()).toBe('a\nb\n'));
  });
});
