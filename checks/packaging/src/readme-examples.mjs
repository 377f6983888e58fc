// README examples are real files: `packages/<pkg>/examples/*.ts`, type-checked against the
// packed tarballs by the packaging test. A README shows one with a marker line right before
// its code block:
//
//   <!-- example: examples/minimal.ts -->
//   ```ts
//   …the file, verbatim…
//   ```
//
// `node checks/packaging/src/readme-examples.mjs` checks that every such block equals its file (and
// that every example file is shown somewhere); `--write` copies the files into the READMEs.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The packages that are published: they need a README with at least one checked example. */
export const publishedPackages = ['core', 'express', 'fastify', 'client', 'engine-reference', 'engine-upstream', 'engine-llama', 'access-control'];

/**
 * The ready server and its pages, published too (in the same fixed version group), with
 * their directories. They are an application, not libraries: test/server-npx.test.ts installs
 * them in a fresh directory and starts the server with npx.
 */
export const publishedServerPackages = { web: 'packages/web', server: 'apps/server' };

/** Every published package's directory, relative to the repository root. */
export const publishedPackageDirs = {
  ...Object.fromEntries(publishedPackages.map((name) => [name, `packages/${name}`])),
  ...publishedServerPackages,
};

const markerPattern = /^<!-- example: (\S+) -->\r?\n```ts\r?\n([\s\S]*?)^```$/gm;

const withFinalNewline = (text) => (text.endsWith('\n') ? text : `${text}\n`);

/** Every example block of one package's README, with the file it must equal. */
export function readExampleBlocks(packageDir) {
  const readmePath = join(packageDir, 'README.md');
  const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
  return [...readme.matchAll(markerPattern)].map((match) => ({
    file: match[1],
    shown: match[2],
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/** The example files of a package (`examples/*.ts`). */
export function listExampleFiles(packageDir) {
  const dir = join(packageDir, 'examples');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => `examples/${name}`);
}

/** Problems, one line each; empty when every README shows its examples verbatim. */
export function checkReadmeExamples(root = repoRoot) {
  const problems = [];
  for (const name of publishedPackages) {
    const packageDir = join(root, 'packages', name);
    const where = relative(root, join(packageDir, 'README.md'));
    const blocks = readExampleBlocks(packageDir);
    const files = listExampleFiles(packageDir);
    if (blocks.length === 0) problems.push(`${where}: no \`<!-- example: examples/….ts -->\` block`);
    for (const block of blocks) {
      const path = join(packageDir, block.file);
      if (!existsSync(path)) {
        problems.push(`${where}: shows ${block.file}, which does not exist`);
        continue;
      }
      if (block.shown !== withFinalNewline(readFileSync(path, 'utf8'))) {
        problems.push(`${where}: the block of ${block.file} differs from the file (run \`pnpm readme:examples\`)`);
      }
    }
    for (const file of files) {
      if (!blocks.some((block) => block.file === file)) problems.push(`${where}: does not show ${file}`);
    }
  }
  return problems;
}

/** Copies each example file into its README block. */
export function writeReadmeExamples(root = repoRoot) {
  for (const name of publishedPackages) {
    const packageDir = join(root, 'packages', name);
    const readmePath = join(packageDir, 'README.md');
    const blocks = readExampleBlocks(packageDir).filter((block) => existsSync(join(packageDir, block.file)));
    if (blocks.length === 0) continue;
    let readme = readFileSync(readmePath, 'utf8');
    for (const block of blocks.reverse()) {
      const body = withFinalNewline(readFileSync(join(packageDir, block.file), 'utf8'));
      readme = `${readme.slice(0, block.start)}<!-- example: ${block.file} -->\n\`\`\`ts\n${body}\`\`\`${readme.slice(block.end)}`;
    }
    writeFileSync(readmePath, readme);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) writeReadmeExamples();
  const problems = checkReadmeExamples();
  for (const problem of problems) console.error(problem);
  process.exit(problems.length === 0 ? 0 : 1);
}
