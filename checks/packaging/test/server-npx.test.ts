/**
 * The ready server without a clone: `@quantum-chat/server` (and `@quantum-chat/web`, its
 * pages) packed as a release would pack them, checked with publint, installed with npm in a
 * fresh directory outside the workspace, and started with `npx @quantum-chat/server` on its
 * embedded defaults (only the port is made free). Then it is used over HTTP as its README
 * says: the playground, the reference, the model list and a chat completion with the key it
 * printed once.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshProject } from '../src/create-fresh-project.js';
import { localBetterSqlitePrebuild } from '../src/local-native-prebuilds.js';
import { packPackages, type Tarballs } from '../src/pack-packages.js';
import { publishedPackageDirs, publishedServerPackages, repoRoot } from '../src/readme-examples.mjs';
import { runCommand, userEnvironment } from '../src/run-command.js';

/** The server's own packages and the libraries it depends on. */
const serverClosure = ['core', 'fastify', 'engine-reference', 'engine-upstream', 'engine-llama', 'access-control', 'web', 'server'];

let workDir = '';
let projectDir = '';
let tarballs: Tarballs = {};
let installed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'quantum-chat-server-npx-'));
  const dirs = publishedPackageDirs as Record<string, string>;
  tarballs = await packPackages(Object.fromEntries(serverClosure.map((name) => [name, join(repoRoot, dirs[name]!)])), join(workDir, 'tarballs'));
  projectDir = join(workDir, 'fresh');
  const prebuild = await localBetterSqlitePrebuild(join(workDir, 'prebuilds'), repoRoot);
  // Our unpublished tarballs by file:, so that the server's @quantum-chat/* ranges resolve to them.
  installed = createFreshProject({
    dir: projectDir,
    type: 'module',
    tarballs,
    dependencies: {},
    overrides: { 'better-sqlite3': prebuild.version },
    env: prebuild.env,
    timeoutMs: 600_000,
  });
  installed.catch(() => undefined);
}, 600_000);

afterAll(async () => {
  await installed.catch(() => undefined);
  if (workDir !== '' && !process.env.QC_KEEP_PACKAGING_DIR) await rm(workDir, { recursive: true, force: true });
});

describe('the server tarballs', () => {
  it.each(Object.keys(publishedServerPackages))('@quantum-chat/%s: a publishable manifest, and publint --strict reports nothing', async (name) => {
    const extract = await runCommand('tar', ['-xzOf', tarballs[name]!, 'package/package.json'], { cwd: workDir, check: true });
    const manifest = JSON.parse(extract.stdout);
    expect(manifest.private).toBeUndefined();
    expect(manifest).toMatchObject({ license: 'MIT', engines: { node: '>=20' }, type: 'module' });
    expect(JSON.stringify(manifest), 'pnpm replaced every workspace: range').not.toContain('workspace:');
    const bytes = await readFile(tarballs[name]!);
    const tarball = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const { messages, pkg } = await publint({ pack: { tarball }, strict: true });
    expect(messages.map((message) => formatMessage(message, pkg, { color: false }))).toEqual([]);
  });

  it('@quantum-chat/server: a quantum-chat bin, its pages and every runtime dependency', async () => {
    const listing = await runCommand('tar', ['-tzvf', tarballs.server!], { cwd: workDir, check: true });
    expect(listing.stdout).toMatch(/^-rwx.* package\/dist\/cli\.js$/m);
    const manifest = JSON.parse((await runCommand('tar', ['-xzOf', tarballs.server!, 'package/package.json'], { cwd: workDir, check: true })).stdout);
    expect(manifest.bin).toEqual({ 'quantum-chat': './dist/cli.js' });
    expect(Object.keys(manifest.dependencies)).toEqual(expect.arrayContaining(['@quantum-chat/core', '@quantum-chat/web', 'fastify', 'better-sqlite3']));
    const web = await runCommand('tar', ['-tzf', tarballs.web!], { cwd: workDir, check: true });
    expect(web.stdout).toMatch(/^package\/dist\/static\/playground\.js$/m);
    expect(web.stdout).toMatch(/^package\/dist\/static\/docs\.html$/m);
  });
});

describe('npx @quantum-chat/server in a fresh directory', () => {
  it('starts on the embedded defaults and serves the playground, /docs and the API with the key it printed', async () => {
    await installed;
    const child = spawn('npx', ['@quantum-chat/server'], {
      cwd: projectDir,
      // The embedded defaults, but a free port: other people run tests on this machine.
      env: { ...userEnvironment(), PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = once(child, 'exit');
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner within 60 s\nstdout:\n${stdout}\nstderr:\n${stderr}`)), 60_000);
        const check = () => {
          if (/Stop it with Ctrl-C/.test(stdout) && /API key: qc_test_\w+/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        void exited.then(() => reject(new Error(`exited early\nstdout:\n${stdout}\nstderr:\n${stderr}`)));
      });
      const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1]!;
      const key = /API key: (qc_test_\w+)/.exec(stderr)![1]!;
      // npx names itself in the commands the server suggests.
      expect(stderr).toContain('More keys: npx @quantum-chat/server keys create --org default');
      expect(stdout).toContain(`Playground:     ${origin}/`);
      expect(stdout).toContain(`API reference:  ${origin}/docs`);
      // The data directory of the embedded defaults: ./.data where it was started.
      expect(existsSync(join(projectDir, '.data', 'quantum-chat.sqlite'))).toBe(true);

      for (const path of ['/', '/docs']) {
        const page = await fetch(`${origin}${path}`);
        expect(page.status, path).toBe(200);
        expect(await page.text()).toMatch(/<html/i);
      }
      const models = await fetch(`${origin}/v1/models`);
      expect((await models.json()).data.map((model: { id: string }) => model.id)).toEqual(['quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro']);
      const chat = await fetch(`${origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'quantum-pro', messages: [{ role: 'user', content: 'What is 12 * 7?' }], max_tokens: 64 }),
      });
      expect(chat.status).toBe(200);
      expect((await chat.json()).choices[0].message.content.length).toBeGreaterThan(0);

      // The CLI through npx: its output only (usage is written as requests settle; the shape is what counts here).
      const usage = await runCommand('npx', ['@quantum-chat/server', 'usage', '--org', 'default', '--json'], { cwd: projectDir });
      expect(usage.code, usage.stderr).toBe(0);
      expect(Array.isArray(JSON.parse(usage.stdout))).toBe(true);
    } finally {
      // npx runs the bin as a child of its own: stop the server itself (its pid is in every log line), then npx.
      const serverPid = Number(/"pid":(\d+)/.exec(stdout)?.[1]);
      if (serverPid > 0) {
        try {
          process.kill(serverPid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      child.kill('SIGTERM');
      await exited;
    }
  });
});
