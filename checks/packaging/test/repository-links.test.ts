/**
 * The contract lives in the repository (docs/spec/), and every link a user can follow works:
 * no file points outside the repository, nothing cites tracker numbers, relative links in
 * Markdown resolve to files that exist, and the READMEs published to npm link only to
 * absolute URLs (a relative link is dead on npmjs.com).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/readme-examples.mjs';

const trackedFiles = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(repoRoot, file)));
const textFiles = trackedFiles.filter((file) => /\.(md|ts|tsx|mts|cts|js|mjs|cjs|json|html|css|ya?ml|sh)$/.test(file) || file.startsWith('.ci/'));
const markdownFiles = trackedFiles.filter((file) => file.endsWith('.md') && !file.endsWith('CHANGELOG.md'));

const publishedReadmes = trackedFiles
  .filter((file) => file.endsWith('/package.json'))
  .filter((file) => JSON.parse(readFileSync(join(repoRoot, file), 'utf8')).private !== true)
  .map((file) => join(dirname(file), 'README.md'))
  .filter((file) => existsSync(join(repoRoot, file)));

/** Markdown link targets: `[text](target)`, without the anchor. */
function linkTargets(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

describe('the contract inside the repository', () => {
  it('is written in docs/spec/', () => {
    const spec = readFileSync(join(repoRoot, 'docs/spec/service-spec.md'), 'utf8');
    const decisions = readFileSync(join(repoRoot, 'docs/spec/decisions.md'), 'utf8');
    expect(spec).toMatch(/^## 6\. Events$/m);
    for (let section = 1; section <= 9; section += 1) expect(decisions).toMatch(new RegExp(`^## ${section}\\. `, 'm'));
  });

  it('no tracked file points outside the repository or cites a tracker number', () => {
    const offenders: string[] = [];
    for (const file of textFiles) {
      if (file.endsWith('CHANGELOG.md') || file === 'pnpm-lock.yaml') continue;
      // Built from parts so that this file does not match itself.
      const pattern = new RegExp(['\\.\\./(\\.\\./)*shared/', '[Ii]ssue[ -]?#?[0-9]'].join('|'));
      readFileSync(join(repoRoot, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (pattern.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('relative Markdown links resolve to files in the repository', () => {
    const broken: string[] = [];
    for (const file of markdownFiles) {
      for (const target of linkTargets(readFileSync(join(repoRoot, file), 'utf8'))) {
        if (/^[a-z]+:|^#|^\//i.test(target)) continue;
        const path = resolve(repoRoot, dirname(file), decodeURI(target.split('#')[0]!));
        if (!path.startsWith(repoRoot) || !existsSync(path)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('READMEs published to npm link only to absolute URLs', () => {
    expect(publishedReadmes.length).toBeGreaterThan(5);
    const relative: string[] = [];
    for (const file of publishedReadmes) {
      for (const target of linkTargets(readFileSync(join(repoRoot, file), 'utf8'))) {
        if (!/^(https?:|mailto:|#)/.test(target)) relative.push(`${file}: ${target}`);
      }
    }
    expect(relative).toEqual([]);
  });
});
