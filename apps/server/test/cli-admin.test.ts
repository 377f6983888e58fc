import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { parseApiKey } from '@quantum-chat/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastLine, runBuiltCli } from './run-cli.js';

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-cli-admin-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

// The CLI runs the admin API's service: the same checks, and every change in the audit log.
describe('quantum-chat orgs create, keys rotate and set, usage --by-day and audit', { timeout: 120_000 }, () => {
  it('should create, rotate and change keys as the admin API does, and write each change to the audit log', async () => {
    const dataDir = temporaryDirectory();
    const cli = (...args: string[]) => runBuiltCli([...args, '--data-dir', dataDir]);

    const org = await cli('orgs', 'create', 'acme', '--plan', 'elite', '--tokens-per-day', '5000');
    expect(org.code, org.stderr).toBe(0);
    expect(org.stdout).toMatch(/acme\s+elite\s+600\s+2000000\s+5000 \*/);
    const taken = await cli('orgs', 'create', 'acme');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("The organisation 'acme' already exists.");

    const created = await cli('keys', 'create', '--org', 'acme', '--models', 'quantum-lite', '--requests-per-minute', '5');
    expect(created.code, created.stderr).toBe(0);
    const oldKey = lastLine(created.stdout);
    const oldId = /Created live key (key_\w+)/.exec(created.stdout)![1]!;

    const rotated = await cli('keys', 'rotate', oldId, '--overlap', '0');
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = lastLine(rotated.stdout);
    const newId = /Created live key (key_\w+)/.exec(rotated.stdout)![1]!;
    expect(parseApiKey(newKey)?.kind).toBe('live');
    expect(newKey).not.toBe(oldKey);
    expect(rotated.stdout).toContain(`Rotated ${oldId} (qc_live_…${oldKey.slice(-4)}): it works until`);

    const listed = await cli('keys', 'list', '--org', 'acme');
    expect(listed.stdout).toMatch(new RegExp(`${oldId}\\s.*\\sexpired\\s.*quantum-lite\\s+requests-per-minute=5`));
    expect(listed.stdout).toMatch(new RegExp(`${newId}\\s.*\\sactive\\s+-\\s+-\\s+quantum-lite\\s+requests-per-minute=5`));
    expect(listed.stdout).not.toContain(newKey);

    const changed = await cli('keys', 'set', newId, '--models', 'all', '--requests-per-minute', 'none', '--expires-at', '2999-01-01');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('expires 2999-01-01T00:00:00.000Z, models all, limits -');

    // Refused as the admin API refuses, named by the option (exit 2 with the usage).
    const badModel = await cli('keys', 'set', newId, '--models', 'quantum-lite,gpt-9');
    expect(badModel.code).toBe(2);
    expect(badModel.stderr).toContain("Invalid value for --models: unknown model 'gpt-9'");
    const past = await cli('keys', 'create', '--org', 'acme', '--expires-at', '2001-01-01');
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('Invalid value for --expires-at: must be in the future');
    expect((await cli('keys', 'rotate', oldId)).stderr).toContain(`The key ${oldId} expired`);

    const audit = await cli('audit', '--json');
    const entries = JSON.parse(audit.stdout) as { actor: string; action: string; subject: string }[];
    expect(entries.map((entry) => [entry.action, entry.subject])).toEqual([
      ['key.update', newId],
      ['key.rotate', oldId],
      ['key.create', oldId],
      ['organisation.create', 'acme'],
    ]);
    expect(new Set(entries.map((entry) => entry.actor))).toEqual(new Set([`cli:${userInfo().username}`]));
    expect(audit.stdout).not.toContain(oldKey);
    expect(audit.stdout).not.toContain(newKey);

    const usage = await cli('usage', '--org', 'acme', '--by-day');
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toMatch(/^No requests for 'acme' from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\.$/m);
  });
});
