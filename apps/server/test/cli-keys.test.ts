import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { parseApiKey } from '@quantum-chat/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastLine, runBuiltCli } from './run-cli.js';
import { startServerProcess } from './server-process.js';

/** How long a running server may serve a key (and its organisation) from memory. */
const keyLookupTtlMs = 1000;

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-cli-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function chat(origin: string, key: string): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 16 }),
  });
}

// Each CLI run starts a Node process, and each server process loads a tokenizer: seconds each.
describe('quantum-chat keys, orgs and usage', { timeout: 60_000 }, () => {
  it('should print a new key once, as the last line, and never list it', async () => {
    const dataDir = temporaryDirectory();
    const created = await runBuiltCli(['keys', 'create', '--org', 'acme', '--plan', 'free', '--kind', 'live', '--data-dir', dataDir]);
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    expect(parseApiKey(key)?.kind).toBe('live');
    expect(created.stdout.split(key)).toHaveLength(2);
    const listed = await runBuiltCli(['keys', 'list', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).not.toContain(key.slice(8, -4));
    expect(listed.stdout).toContain(`qc_live_…${key.slice(-4)}`);
    expect(listed.stdout).toMatch(/live\s+acme\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+active/);
  });

  it('should make a test key that requires a signature, and refuse a plan change in passing', async () => {
    const dataDir = temporaryDirectory();
    await runBuiltCli(['keys', 'create', '--org', 'acme', '--plan', 'free', '--data-dir', dataDir]);
    const signed = await runBuiltCli(['keys', 'create', '--org', 'acme', '--kind', 'test', '--require-signature', '--data-dir', dataDir]);
    expect(parseApiKey(lastLine(signed.stdout))?.kind).toBe('test');
    expect((await runBuiltCli(['keys', 'list', '--org', 'acme', '--data-dir', dataDir])).stdout).toMatch(/test\s+acme\s+\S+\s+active\s+required/);
    const conflicting = await runBuiltCli(['keys', 'create', '--org', 'acme', '--plan', 'elite', '--data-dir', dataDir]);
    expect(conflicting.code).toBe(1);
    expect(conflicting.stderr).toContain('orgs set-limits acme --plan elite');
  });

  it('should refuse bad arguments with the usage and exit code 2', async () => {
    const dataDir = temporaryDirectory();
    for (const args of [['keys', 'create'], ['keys', 'create', '--org', 'a', '--kind', 'gold'], ['orgs', 'set-limits', 'a', '--tokens-per-day', 'lots'], ['usage']]) {
      const result = await runBuiltCli([...args, '--data-dir', dataDir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage');
    }
  });

  it('should serve a created key, make it 401 once revoked, and report its usage', async () => {
    const dataDir = temporaryDirectory();
    const created = await runBuiltCli(['keys', 'create', '--org', 'acme', '--plan', 'free', '--data-dir', dataDir]);
    const key = lastLine(created.stdout);
    const id = /Created live key (key_\w+)/.exec(created.stdout)![1]!;
    const server = await startServerProcess({ dataDir });
    onTestFinished(() => server.dispose());
    // A store with organisations is not seeded again.
    expect(server.firstStartKey).toBeUndefined();
    expect(server.stderr()).not.toContain('API key:');
    const served = await chat(server.origin, key);
    expect(served.status).toBe(200);
    expect(served.headers.get('x-ratelimit-limit-requests')).toBe('60');
    await served.text();

    const revoked = await runBuiltCli(['keys', 'revoke', id, '--data-dir', dataDir]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).not.toContain(key);
    // The server drops a revoked key from its cache when the store announces it (within 1 s).
    await sleep(keyLookupTtlMs);
    const refused = await chat(server.origin, key);
    expect(refused.status).toBe(401);
    expect(errorEnvelopeSchema.parse(await refused.json()).error.code).toBe('invalid_api_key');
    expect((await runBuiltCli(['keys', 'list', '--data-dir', dataDir])).stdout).toMatch(/revoked/);
    expect((await runBuiltCli(['keys', 'revoke', 'key_nope', '--data-dir', dataDir])).code).toBe(1);

    const report = await runBuiltCli(['usage', '--org', 'acme', '--data-dir', dataDir]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`${id}\\s+qc_live_…${key.slice(-4)} \\(live\\)\\s+quantum-lite\\s+1\\s+\\d+\\s+0\\s+\\d+\\s+0\\s+0`));
    const json = JSON.parse((await runBuiltCli(['usage', '--org', 'acme', '--json', '--data-dir', dataDir])).stdout) as { requests: number }[];
    expect(json).toMatchObject([{ keyId: id, model: 'quantum-lite', requests: 1, cachedPromptTokens: 0, errors: 0 }]);
    const later = await runBuiltCli(['usage', '--org', 'acme', '--since', new Date(Date.now() + 60_000).toISOString(), '--data-dir', dataDir]);
    expect(later.stdout).toContain('No requests');
  });

  it('should apply orgs set-limits to a running server within 1 s', async () => {
    const dataDir = temporaryDirectory();
    const key = lastLine((await runBuiltCli(['keys', 'create', '--org', 'acme', '--plan', 'free', '--data-dir', dataDir])).stdout);
    const server = await startServerProcess({ dataDir });
    onTestFinished(() => server.dispose());
    await (await chat(server.origin, key)).text();
    const set = await runBuiltCli(['orgs', 'set-limits', 'acme', '--requests-per-minute', '2', '--tokens-per-day', 'none', '--data-dir', dataDir]);
    expect(set.stdout).toMatch(/acme\s+free\s+2 \*\s+100000\s+none \*/);
    await sleep(keyLookupTtlMs);
    const second = await chat(server.origin, key);
    expect(second.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(second.headers.get('x-ratelimit-limit-tokens-day')).toBeNull();
    await second.text();
    expect((await chat(server.origin, key)).status).toBe(429);
    const reset = await runBuiltCli(['orgs', 'set-limits', 'acme', '--requests-per-minute', 'default', '--data-dir', dataDir]);
    expect(reset.stdout).toMatch(/acme\s+free\s+60\s+100000\s+none \*/);
    await sleep(keyLookupTtlMs);
    expect((await chat(server.origin, key)).status).toBe(200);
  });

  it('should seed an empty store with a default elite organisation and print its test key once', async () => {
    const dataDir = temporaryDirectory();
    const first = await startServerProcess({ dataDir });
    onTestFinished(() => first.dispose());
    const key = first.firstStartKey;
    expect(parseApiKey(key ?? '')?.kind).toBe('test');
    // The elite plan serves quantum-pro.
    const response = await fetch(`${first.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-pro', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }),
    });
    expect(response.status).toBe(200);
    expect((await runBuiltCli(['orgs', 'list', '--data-dir', dataDir])).stdout).toMatch(/default\s+elite\s+600\s+2000000\s+none/);
    await first.dispose();
    const second = await startServerProcess({ dataDir });
    onTestFinished(() => second.dispose());
    expect(second.stderr()).not.toContain('API key:');
    expect(second.firstStartKey).toBeUndefined();
  });
});
