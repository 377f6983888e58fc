// Package boundaries as lint rules (as tRPC keeps its adapters off its core's internals, so
// that third-party adapters can be written from the same public surface): a workspace reaches
// another only through the subpaths that package's `exports` publishes, never through its
// `src`/`dist` or a relative path; the core imports no framework and, outside its Node bridge,
// nothing from Node; the client's browser entry takes only the core's zod-free subpaths.
//
// These rules use `@typescript-eslint/no-restricted-imports`, so that they add to the core's
// per-room `no-restricted-imports` blocks (packages/core) instead of replacing them: ESLint
// keeps only the last options given to one rule for a file.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';

const root = new URL('./', import.meta.url);
const workspaceFolders = ['packages', 'apps', 'checks', 'examples'];

/** Every workspace package: its name, folder and the subpaths its `exports` publishes. */
function workspacePackages() {
  return workspaceFolders.flatMap((folder) =>
    readdirSync(new URL(`${folder}/`, root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        let manifest;
        try {
          manifest = JSON.parse(readFileSync(new URL(`${folder}/${entry.name}/package.json`, root), 'utf8'));
        } catch {
          return [];
        }
        const exportsMap = manifest.exports && typeof manifest.exports === 'object' ? manifest.exports : {};
        const subpaths = Object.keys(exportsMap).filter((key) => key !== '.').map((key) => key.slice(2));
        return [{ name: manifest.name, folder: entry.name, subpaths }];
      }),
  );
}

/** Escaped for a regular expression in Unicode mode (which ESLint uses: no `\-` or `\/`). */
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const packages = workspacePackages().filter((item) => item.name?.startsWith('@quantum-chat/'));

/** `@quantum-chat/<name>/<anything but a published subpath>`. */
const deepImportPatterns = packages.map(({ name, subpaths }) => ({
  regex: subpaths.length > 0 ? `^${escape(name)}/(?!(${subpaths.map(escape).join('|')})$)` : `^${escape(name)}/`,
  message: `${name} is imported through its published entries only (${['.', ...subpaths.map((subpath) => `./${subpath}`)].join(', ')}: its package.json "exports").`,
}));

/** A relative path that climbs out into another workspace's folder. */
const relativeIntoPackagePattern = {
  regex: `^(\\.\\./)+((${workspaceFolders.join('|')})/|(${packages.map(({ folder }) => escape(folder)).join('|')})/(src|dist|test)(/|$))`,
  message: 'Another workspace is imported by its package name and published entries, never by a relative path into its folder.',
};

const betweenPackages = [...deepImportPatterns, relativeIntoPackagePattern];

/** What the core must never import: it runs unchanged in any runtime and under any framework. */
const frameworks = ['express', 'fastify', 'undici', 'ioredis', 'pg', 'postgres', 'better-sqlite3', 'pino', 'prom-client', '@opentelemetry/*', 'node-llama-cpp'];
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_')).map(escape);
const nodeModulePattern = `^(node:|(${nodeBuiltins.join('|')})(/|$))`;

const restricted = (patterns, paths = []) => ({ '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] });
const sourceFiles = (folder) => [`${folder}/**/*.{ts,mts,cts,js,mjs,cjs}`];
const testFiles = ['**/*.test.*', '**/test/**'];

export const packageBoundaryRules = [
  {
    name: 'boundaries/between-packages',
    files: ['{packages,apps,checks,examples}/*/**/*.{ts,mts,cts,js,mjs,cjs}'],
    ignores: testFiles,
    rules: restricted(betweenPackages),
  },
  {
    // Tests still share the helpers that start a real Redis, PostgreSQL or upstream
    // (packages/access-control/test, packages/engine-upstream/test/helpers) by relative path.
    name: 'boundaries/between-packages-in-tests',
    files: testFiles.map((glob) => `{packages,apps,checks,examples}/*/${glob}`),
    rules: restricted(deepImportPatterns),
  },
  {
    name: 'boundaries/core-is-pure',
    files: sourceFiles('packages/core/src'),
    // Tests drive the core from Node; the Node bridge (src/node/, entry src/node.ts) is where Node belongs.
    ignores: ['**/*.test.ts', 'packages/core/src/node/**', 'packages/core/src/node.ts'],
    rules: restricted([
      ...betweenPackages,
      { group: frameworks, message: 'The core imports no framework, server library or store driver: hosts and apps bring those.' },
      { regex: nodeModulePattern, message: 'Only the core\'s Node bridge (src/node/) imports Node modules: the core is runtime-neutral.' },
      { group: ['@quantum-chat/*'], message: 'The core depends on no other package of ours: they depend on it.' },
    ]),
  },
  {
    name: 'boundaries/core-node-bridge',
    files: [...sourceFiles('packages/core/src/node'), 'packages/core/src/node.ts'],
    ignores: ['**/*.test.ts'],
    rules: restricted([
      ...betweenPackages,
      { group: frameworks, message: 'The Node bridge speaks to Node\'s http objects by shape, never to a framework.' },
      { group: ['@quantum-chat/*'], message: 'The core depends on no other package of ours: they depend on it.' },
    ]),
  },
  {
    name: 'boundaries/client-browser-entry',
    // The main entry of @quantum-chat/client is bundled for browsers; its MCP entry (src/mcp*) runs in Node.
    files: sourceFiles('packages/client/src'),
    ignores: ['**/*.test.ts', 'packages/client/src/mcp.ts', 'packages/client/src/mcp/**'],
    rules: restricted(
      [
        ...betweenPackages,
        {
          regex: '^(?!\\.|@quantum-chat/core(/(dialect|sse|json-schema))?$)',
          message: 'The client\'s main entry is bundled for browsers: it imports only the core\'s zod-free subpaths (/dialect, /sse, /json-schema) and its own files.',
        },
        { group: ['**/mcp', '**/mcp.js', '**/mcp/**'], message: 'The MCP entry (Node only) stays out of the main entry\'s graph.' },
      ],
      [{ name: '@quantum-chat/core', allowTypeImports: true, message: 'The main core entry brings zod: the client takes only its types (`import type`).' }],
    ),
  },
];
