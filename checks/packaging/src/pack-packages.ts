import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pnpmCommand } from './pnpm-command.mjs';
import { runCommand } from './run-command.js';

/** Where each published package's tarball went. */
export type Tarballs = Record<string, string>;

/**
 * `pnpm pack`s each package directory into `destination`, as a release would: pnpm rewrites
 * `workspace:` ranges to real versions and adds the workspace's LICENSE. Packing does not
 * build, so a package without `dist` is refused here (run `pnpm build` first).
 *
 * @example
 * const tarballs = await packPackages({ core: '/repo/packages/core' }, '/tmp/tarballs');
 */
export async function packPackages(packageDirs: Record<string, string>, destination: string): Promise<Tarballs> {
  await mkdir(destination, { recursive: true });
  for (const [name, dir] of Object.entries(packageDirs)) {
    if (!existsSync(join(dir, 'dist'))) throw new Error(`packages/${name} has no dist: run \`pnpm build\` before the packaging test.`);
  }
  const [pnpm, ...pnpmArgs] = pnpmCommand();
  const tarballs: Tarballs = {};
  // Two at a time: pnpm is quick to pack but slow to start on a 2-core machine.
  const queue = Object.entries(packageDirs);
  async function worker() {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [name, dir] = next;
      await runCommand(pnpm!, [...pnpmArgs, 'pack', '--pack-destination', destination], { cwd: dir, check: true, timeoutMs: 120_000 });
      const pattern = new RegExp(`^quantum-chat-${name}-\\d[\\w.-]*\\.tgz$`);
      const tarball = (await readdir(destination)).find((file) => pattern.test(file));
      if (tarball === undefined) throw new Error(`pnpm pack of packages/${name} left no quantum-chat-${name}-<version>.tgz in ${destination}`);
      tarballs[name] = join(destination, tarball);
    }
  }
  await Promise.all([worker(), worker()]);
  return tarballs;
}
