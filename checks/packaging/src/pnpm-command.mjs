// How to call pnpm from the packaging test and release:dry: the `pnpm` on PATH when it is
// the workspace's version, otherwise `npx -y pnpm@<packageManager version>` (what CI uses;
// a fresh machine need not have pnpm installed globally).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './readme-examples.mjs';

let cached;

/** `[command, ...leadingArgs]` that runs the workspace's pnpm. */
export function pnpmCommand() {
  if (cached) return cached;
  const packageManager = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).packageManager ?? 'pnpm@12';
  const version = packageManager.replace(/^pnpm@/, '').split('+')[0];
  const onPath = spawnSync('pnpm', ['--version'], { encoding: 'utf8', env: { ...process.env, COREPACK_ENABLE_STRICT: '0' } });
  cached = onPath.status === 0 && onPath.stdout.trim() === version ? ['pnpm'] : ['npx', '-y', `pnpm@${version}`];
  return cached;
}
