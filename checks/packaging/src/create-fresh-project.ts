import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './run-command.js';
import type { Tarballs } from './pack-packages.js';

export interface FreshProjectOptions {
  /** Outside the workspace, so nothing resolves through the workspace's node_modules. */
  dir: string;
  type: 'module' | 'commonjs';
  tarballs: Tarballs;
  /** Third-party packages from the registry: the frameworks and, for TypeScript, their types. */
  dependencies: Record<string, string>;
  /** npm `overrides`, e.g. to pin a transitive dependency to the version the workspace tests. */
  overrides?: Record<string, string>;
  /** Extra environment for `npm install`. */
  env?: Record<string, string>;
  /** 240 s by default. */
  timeoutMs?: number;
}

/**
 * A user's new project: a package.json that depends on every tarball by `file:` and on the
 * frameworks by range, then one `npm install` (the registry for third-party packages, the
 * user's npm cache shared between runs).
 *
 * @example
 * await createFreshProject({ dir, type: 'module', tarballs, dependencies: { express: '^5.1.0' } });
 */
export async function createFreshProject(options: FreshProjectOptions): Promise<void> {
  await mkdir(options.dir, { recursive: true });
  const dependencies: Record<string, string> = { ...options.dependencies };
  for (const [name, tarball] of Object.entries(options.tarballs)) dependencies[`@quantum-chat/${name}`] = `file:${tarball}`;
  const manifest = { name: `fresh-${options.type}-project`, version: '1.0.0', private: true, type: options.type, dependencies, ...(options.overrides ? { overrides: options.overrides } : {}) };
  await writeFile(join(options.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await runCommand('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: options.dir,
    check: true,
    timeoutMs: options.timeoutMs ?? 240_000,
    ...(options.env ? { env: options.env } : {}),
  });
}
