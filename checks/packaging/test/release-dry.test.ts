/**
 * `pnpm release:dry` shows what a release would publish (versions, CHANGELOGs, tarballs)
 * and leaves the work tree as it was.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishedPackageDirs, repoRoot } from '../src/readme-examples.mjs';

const publishedPackages = Object.keys(publishedPackageDirs);
import { runCommand } from '../src/run-command.js';

/** What `changeset version` would touch, as git sees it in this work tree. */
function releaseFilesStatus(): string {
  const paths = ['.changeset', ...Object.values(publishedPackageDirs).flatMap((dir) => [`${dir}/package.json`, `${dir}/CHANGELOG.md`])];
  return execFileSync('git', ['status', '--porcelain', '--', ...paths], { cwd: repoRoot, encoding: 'utf8' });
}

describe('release-dry.mjs', () => {
  it('should print the version bumps, CHANGELOG diffs and tarballs without changing the work tree', async () => {
    const before = releaseFilesStatus();
    const result = await runCommand(process.execPath, [join(repoRoot, 'checks/packaging/src/release-dry.mjs')], { cwd: repoRoot, timeoutMs: 180_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(releaseFilesStatus()).toBe(before);

    const versions = [...result.stdout.matchAll(/^@quantum-chat\/([\w-]+): (\S+) → (\S+)$/gm)];
    if (versions.length === 0) {
      // No pending changesets: nothing is bumped, and the tarballs are the current versions.
      expect(result.stdout).toContain('Nothing to release');
    } else {
      // The fixed group: every published package moves, and all to the same version.
      expect(versions.map((match) => match[1]).sort()).toEqual([...publishedPackages].sort());
      expect(new Set(versions.map((match) => match[3])).size).toBe(1);
      for (const dir of Object.values(publishedPackageDirs)) expect(result.stdout).toContain(`+++ b/${dir}/CHANGELOG.md`);
    }
    const tarballs = [...result.stdout.matchAll(/^quantum-chat-([\w-]+?)-(\d+\.\d+\.\d+\S*)\.tgz /gm)];
    expect(tarballs.map((match) => match[1]).sort()).toEqual([...publishedPackages].sort());
  });
});
