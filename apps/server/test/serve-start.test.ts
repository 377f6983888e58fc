/**
 * Starting `quantum-chat serve` as a new user does: the port is bound before the first
 * start's key is made (a taken port loses nothing and gets one sentence on how to pick
 * another), the key is shown once, framed, on stderr and never in the JSON log stream, every
 * start names organisations that have no usable key with the command that makes one, and the
 * banner names the playground and the API reference.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastLine, runBuiltCli } from './run-cli.js';
import { startServerProcess } from './server-process.js';

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-start-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** A port on 127.0.0.1 that something else holds for the rest of the test. */
async function takenPort(): Promise<number> {
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  return (holder.address() as AddressInfo).port;
}

function chat(origin: string, key: string): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-pro', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }),
  });
}

// Each server process loads a tokenizer: seconds each on a busy machine.
describe('quantum-chat serve: the first start', { timeout: 90_000 }, () => {
  it('should bind first: a taken port gets one sentence and exit 1, and the next start still shows the key', async () => {
    const directory = temporaryDirectory();
    const dataDir = join(directory, 'data');
    const configPath = join(directory, 'quantum-chat.config.json');
    writeFileSync(configPath, JSON.stringify({ dataDir }));
    const port = await takenPort();

    const failed = await runBuiltCli(['serve', '--config', configPath], { cwd: directory, env: { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' } });
    expect(failed.code).toBe(1);
    const sentence = failed.stderr.trim();
    expect(sentence.split('\n')).toHaveLength(1);
    expect(sentence).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(sentence).toContain(`--port ${port + 1}`);
    expect(sentence).toContain('PORT=');
    expect(sentence).toContain(`"port" in ${configPath}`);
    expect(failed.stderr + failed.stdout).not.toMatch(/qc_test_|API key:|EADDRINUSE| {4}at /);
    // Nothing was made that could not be shown.
    expect((await runBuiltCli(['orgs', 'list', '--data-dir', dataDir])).stdout).not.toContain('default');

    const server = await startServerProcess({ dataDir });
    onTestFinished(() => server.dispose());
    expect(server.firstStartKey).toMatch(/^qc_test_/);
    expect((await chat(server.origin, server.firstStartKey!)).status).toBe(200);
  });

  it('should show the key once, framed, on stderr only, and the playground and /docs in the banner', async () => {
    const dataDir = join(temporaryDirectory(), 'data');
    const server = await startServerProcess({ dataDir });
    onTestFinished(() => server.dispose());
    const key = server.firstStartKey!;
    expect(server.stdout()).not.toContain(key);
    expect(server.stdout()).not.toContain(key.slice(8));
    const stderrLines = server.stderr().split('\n');
    expect(stderrLines.filter((line) => line.includes(key))).toHaveLength(1);
    const keyLine = stderrLines.findIndex((line) => line.includes(key));
    const frame = stderrLines.slice(0, stderrLines.findIndex((line, index) => index > 0 && line.startsWith('+')) + 1);
    expect(frame[0]).toMatch(/^\+-+\+$/);
    expect(frame.at(-1)).toBe(frame[0]);
    expect(keyLine).toBeLessThan(frame.length);
    expect(frame.slice(1, -1).every((line) => line.startsWith('|') && line.endsWith('|') && line.length === frame[0]!.length)).toBe(true);
    expect(server.stderr()).toContain('keys create --org default');

    const banner = server.stdout().slice(server.stdout().indexOf('Quantum chat server listening on'));
    expect(banner).toContain(`Playground:     ${server.origin}/\n`);
    expect(banner).toContain(`API reference:  ${server.origin}/docs\n`);
    expect(banner).toContain(`${server.origin}/v1`);
    for (const path of ['/', '/docs']) {
      const page = await fetch(`${server.origin}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      await page.text();
    }
    // Besides the banner, stdout is the JSON log stream (written in batches).
    await server.waitForStdout(/^\{.*"msg":"config loaded".*\}$/m);
    const lines = server.stdout().split('\n').filter(Boolean);
    const bannerStart = lines.findIndex((line) => line.startsWith('Quantum chat server listening on'));
    const bannerEnd = lines.indexOf('Stop it with Ctrl-C.');
    const logLines = [...lines.slice(0, bannerStart), ...lines.slice(bannerEnd + 1)];
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();

    await server.dispose();
  });

  it('should say on every start how to make a key for an organisation that has none usable', async () => {
    const directory = temporaryDirectory();
    const dataDir = join(directory, 'data');
    const configPath = join(directory, 'quantum-chat.config.json');
    writeFileSync(configPath, JSON.stringify({ dataDir }));
    const first = await startServerProcess({ dataDir });
    expect(first.stderr()).not.toContain('has no usable API key');
    await first.dispose();
    const listed = await runBuiltCli(['keys', 'list', '--data-dir', dataDir]);
    const id = /key_\w+/.exec(listed.stdout)![0];
    expect((await runBuiltCli(['keys', 'revoke', id, '--data-dir', dataDir])).code).toBe(0);

    // Whatever launched the test runner (`npx -y pnpm test` leaves npm_command=exec in every
    // child): the suggestion follows how this process was started (`node dist/cli.js`).
    const launcher = { QUANTUM_CHAT_CLI_NAME: '', npm_command: 'exec' };
    for (let start = 0; start < 2; start += 1) {
      const next = await startServerProcess({ dataDir }, launcher);
      await next.waitForStderr(/has no usable API key/);
      expect(next.firstStartKey).toBeUndefined();
      const line = next.stderr().split('\n').find((text) => text.includes('has no usable API key'))!;
      expect(line).toMatch(/^Organisation 'default' has no usable API key; make one with: quantum-chat keys create --org default --config \S+$/);
      await next.dispose();
    }
    // The command it names works as written (here with our config, which names the data dir).
    const made = await runBuiltCli(['keys', 'create', '--org', 'default', '--config', configPath]);
    expect(made.code).toBe(0);
    const server = await startServerProcess({ dataDir });
    onTestFinished(() => server.dispose());
    expect(server.stderr()).not.toContain('has no usable API key');
    expect((await chat(server.origin, lastLine(made.stdout))).status).toBe(200);
  });
});
