/**
 * The repository's own entry points, `pnpm start` and `pnpm quantum-chat …`
 * (scripts/quantum-chat.mjs): a build shows progress instead of minutes of silence, its logs
 * appear only when it fails, and the CLI's output is only its own (pipeable, no build-tool or
 * package-manager lines).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, without types.
import { buildWithProgress, createBuildProgress } from '../../../scripts/build-with-progress.mjs';
// @ts-expect-error: a plain .mjs script of the repository, without types.
import { pnpmCommand } from '../../../checks/packaging/src/pnpm-command.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

interface BuildProgress {
  event(entry: { source: string; level: string; text: string }): void;
  tick(): void;
  finish(code: number): boolean;
}

/** `pnpm <args>` as a user types it (the pnpm on PATH, or `npx -y pnpm@<version>` on a fresh machine). */
function pnpm(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const [command, ...leading] = pnpmCommand() as string[];
  return new Promise((resolvePromise) => {
    execFile(command!, [...leading, ...args], { cwd, env: { ...process.env, FORCE_COLOR: '0' } }, (error, stdout, stderr) => {
      resolvePromise({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** Lines that would come from turbo or pnpm rather than from the CLI. */
const buildToolNoise = /ERR_PNPM|ELIFECYCLE|• turbo|Tasks:\s+\d|Cached:\s+\d|FULL TURBO|^\$ /m;

describe('build progress', () => {
  it('should name each package it builds, show life while a step is long, and say when it is done', () => {
    let clock = 0;
    let output = '';
    const progress: BuildProgress = createBuildProgress((text: string) => (output += text), () => clock);
    progress.event({ source: 'turbo', level: 'info', text: '   • Running build in 3 packages' });
    progress.event({ source: '@quantum-chat/core#build', level: 'stdout', text: 'cache hit, replaying logs 1234' });
    expect(output).toBe('');
    progress.event({ source: '@quantum-chat/web#build', level: 'stdout', text: 'cache miss, executing 5678' });
    progress.event({ source: '@quantum-chat/web#build', level: 'stdout', text: 'ESM Build start' });
    clock = 15_000;
    progress.tick();
    progress.event({ source: '@quantum-chat/server#build', level: 'stdout', text: 'cache miss, executing 9abc' });
    clock = 61_000;
    expect(progress.finish(0)).toBe(true);
    expect(output.split('\n')).toEqual([
      expect.stringMatching(/^Building the quantum-chat packages \(minutes on a fresh clone/),
      '  [2/3] building @quantum-chat/web',
      '  ...still building (15 s so far)',
      '  [3/3] building @quantum-chat/server',
      'Built 2 packages in 61 s.',
      '',
    ]);
    expect(output).not.toContain('ESM Build start');
  });

  it('should print nothing when everything comes from the cache', () => {
    let output = '';
    const progress: BuildProgress = createBuildProgress((text: string) => (output += text));
    progress.event({ source: 'turbo', level: 'info', text: '   • Running build in 1 package' });
    progress.event({ source: '@quantum-chat/core#build', level: 'stdout', text: 'cache hit, replaying logs 1234' });
    progress.tick();
    expect(progress.finish(0)).toBe(true);
    expect(output).toBe('');
  });

  it('should show the logs of the tasks that ran when the build fails', async () => {
    const events = [
      { source: 'turbo', level: 'info', text: '   • Running build in 2 packages' },
      { source: 'a#build', level: 'stdout', text: 'cache hit, replaying logs 1' },
      { source: 'a#build', level: 'stdout', text: 'a replayed line' },
      { source: 'b#build', level: 'stdout', text: 'cache miss, executing 2' },
      { source: 'b#build', level: 'stdout', text: 'src/x.ts(1,1): error TS2304: Cannot find name y.' },
    ];
    const script = `for (const e of ${JSON.stringify(events)}) console.log(JSON.stringify(e)); process.exit(1);`;
    let output = '';
    const ok = await buildWithProgress([process.execPath, '-e', script], { cwd: root, write: (text: string) => (output += text) });
    expect(ok).toBe(false);
    expect(output).toContain('  [2/2] building b\n');
    expect(output).toContain('The build failed (turbo exited with 1)');
    expect(output).toContain('b#build: src/x.ts(1,1): error TS2304: Cannot find name y.');
    expect(output).not.toContain('a replayed line');
  });
});

// Runs the real pnpm, turbo (cached after `pnpm build`: seconds; minutes if sources changed since) and CLI.
describe('pnpm quantum-chat', { timeout: 300_000 }, () => {
  it('should print only the CLI output, so that `usage --json` can be piped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quantum-chat-repo-cli-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const created = await pnpm(['quantum-chat', 'keys', 'create', '--org', 'acme', '--data-dir', dataDir], root);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created organisation 'acme' \(free plan\)\.\nCreated live key key_\w+ for 'acme'\. .*\nqc_live_\w+\n$/);
    expect(created.stderr).not.toMatch(buildToolNoise);

    const usage = await pnpm(['quantum-chat', 'usage', '--org', 'acme', '--json', '--data-dir', dataDir], root);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout)).toEqual([]);
    expect(usage.stderr).not.toMatch(buildToolNoise);
  });

  it('should end a failing command with its own message and exit code only', async () => {
    const failed = await pnpm(['quantum-chat', 'usage'], root);
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^(?:Building[\s\S]*?\n)?quantum-chat usage: `usage` needs --org <name>\.\n\nUsage: quantum-chat usage/);
    expect(failed.stderr).not.toMatch(buildToolNoise);
  });
});
