import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runCommand } from './run-command.js';

/**
 * Hands `npm install` the workspace's own compiled better-sqlite3 as a local prebuild, the
 * way prebuild-install would download one from GitHub for a user: compiling SQLite from
 * source takes minutes on a busy 2-core machine, and nothing but the npm registry is reachable.
 * Returns the environment for `npm install` and the version to pin (the prebuild's).
 *
 * @example
 * const { env, version } = await localBetterSqlitePrebuild(join(workDir, 'prebuilds'), repoRoot);
 */
export async function localBetterSqlitePrebuild(directory: string, workspaceRoot: string): Promise<{ env: Record<string, string>; version: string }> {
  // The copy the workspace installed for access-control (a devDependency there).
  const require = createRequire(join(workspaceRoot, 'packages/access-control/package.json'));
  const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  await mkdir(directory, { recursive: true });
  // prebuild-install's file name: <name>-v<version>-<runtime>-v<abi>-<platform><libc>-<arch>.tar.gz (glibc: no libc part).
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await runCommand('tar', ['-czf', join(directory, file), '-C', packageDir, 'build/Release/better_sqlite3.node'], { cwd: directory, check: true });
  return { env: { npm_config_better_sqlite3_local_prebuilds: directory }, version };
}
