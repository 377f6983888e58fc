// `pnpm release:dry`: what a release would publish, without publishing and without touching
// this work tree. In a temporary copy of the repository (tracked files as they are now, plus
// changesets not yet committed, plus the published packages' dist), it runs
// `changeset version`, prints the version bumps and CHANGELOG diffs, then `pnpm pack`s every
// published package and prints the tarballs. `--keep` leaves the copy for a look.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pnpmCommand } from './pnpm-command.mjs';
import { publishedPackageDirs, repoRoot } from './readme-examples.mjs';

const published = Object.entries(publishedPackageDirs);

const keep = process.argv.includes('--keep');
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
const gitFiles = (...args) => run('git', ['ls-files', '-z', ...args], repoRoot).split('\0').filter(Boolean);

for (const [, dir] of published) {
  if (!existsSync(join(repoRoot, dir, 'dist'))) {
    console.error(`${dir} has no dist: run \`pnpm build\` first (pnpm release:dry does).`);
    process.exit(1);
  }
}

const copy = mkdtempSync(join(tmpdir(), 'quantum-chat-release-dry-'));
try {
  // 1. The copy: tracked files, pending changesets, and the build output pnpm pack needs.
  const files = [...gitFiles('--cached'), ...gitFiles('--others', '--exclude-standard', '--', '.changeset')];
  for (const file of new Set(files)) {
    const from = join(repoRoot, file);
    if (!existsSync(from)) continue; // deleted in the work tree
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(from, join(copy, file));
  }
  for (const [, dir] of published) cpSync(join(repoRoot, dir, 'dist'), join(copy, dir, 'dist'), { recursive: true });
  // changeset resolves its changelog generator from the copy; the workspace's modules serve.
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const git = (...args) => run('git', ['-c', 'user.name=release-dry', '-c', 'user.email=release-dry@localhost', '-c', 'core.autocrlf=false', ...args], copy);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '--no-verify', '-m', 'before changeset version');

  // 2. changeset version: bumps the fixed group, writes CHANGELOGs, deletes the changesets.
  const pending = readdirSync(join(copy, '.changeset')).filter((file) => file.endsWith('.md') && file !== 'README.md');
  console.log(`# changeset version (${pending.length} pending changeset${pending.length === 1 ? '' : 's'})\n`);
  if (pending.length === 0) console.log('Nothing to release: no pending changesets. The tarballs below are the current versions.\n');
  process.stdout.write(run(process.execPath, [join(repoRoot, 'node_modules/@changesets/cli/bin.js'), 'version'], copy));
  git('add', '-A');
  console.log('\n# What changed\n');
  console.log(git('diff', '--cached', '--stat', 'HEAD'));
  console.log('# Versions\n');
  for (const [name, dir] of published) {
    const diff = git('diff', '--cached', '-U0', 'HEAD', '--', `${dir}/package.json`);
    const before = /^-\s+"version": "([^"]+)"/m.exec(diff)?.[1];
    const after = /^\+\s+"version": "([^"]+)"/m.exec(diff)?.[1];
    console.log(`@quantum-chat/${name}: ${before && after ? `${before} → ${after}` : 'unchanged'}`);
  }
  console.log('\n# CHANGELOG diffs\n');
  console.log(git('diff', '--cached', 'HEAD', '--', ...published.map(([, dir]) => `${dir}/CHANGELOG.md`)));

  // 3. pnpm pack: what `changeset publish` would upload. pnpm turns each `workspace:` range
  // into the version of the installed dependency, so link the copy's (bumped) packages.
  const dirOf = (dependency) => publishedPackageDirs[dependency.replace('@quantum-chat/', '')] ?? `packages/${dependency.replace('@quantum-chat/', '')}`;
  for (const [, dir] of published) {
    const manifest = JSON.parse(readFileSync(join(copy, dir, 'package.json'), 'utf8'));
    const ranges = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
    for (const [dependency, range] of Object.entries(ranges)) {
      if (!String(range).startsWith('workspace:')) continue;
      const link = join(copy, dir, 'node_modules', dependency);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(copy, dirOf(dependency)), link, 'dir');
    }
  }
  const tarballs = join(copy, 'tarballs');
  mkdirSync(tarballs);
  const [pnpm, ...pnpmArgs] = pnpmCommand();
  for (const [, dir] of published) run(pnpm, [...pnpmArgs, 'pack', '--pack-destination', tarballs], join(copy, dir));
  console.log('# Tarballs (not published)\n');
  for (const file of readdirSync(tarballs).sort()) {
    const packed = JSON.parse(run('tar', ['-xzOf', join(tarballs, file), 'package/package.json'], copy));
    const ours = Object.entries(packed.dependencies ?? {}).filter(([dependency]) => dependency.startsWith('@quantum-chat/'));
    const needs = ours.length === 0 ? '' : `  (${ours.map(([dependency, range]) => `${dependency}@${range}`).join(', ')})`;
    console.log(`${file}  ${(statSync(join(tarballs, file)).size / 1024).toFixed(1)} kB${needs}`);
  }
  if (keep) console.log(`\nKept the copy at ${copy}`);
} catch (error) {
  console.error(error.stderr ? `${error.message}\n${error.stdout ?? ''}${error.stderr}` : error);
  process.exitCode = 1;
} finally {
  if (!keep) rmSync(copy, { recursive: true, force: true });
}
