// knip: the dead-code check of `pnpm lint`. Every workspace is read from its package entry
// points (package.json `exports`, `bin`, scripts, tsup and vitest configs, which knip's plugins
// read): an exported value or type in `src` that nothing imports is an error, so each
// package's public index (its `exports` subpaths) stays what it means to publish. Entries
// knip cannot see are named here, by folder, never by a file inside a package's `src`.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // System programs the tests and the bench start (installed by .ci/run, not from npm), and
  // `perf`, which only a profile script under apps/bench/profile starts.
  ignoreBinaries: ['taskset', 'prlimit', 'promtool', 'redis-server', 'perf'],
  workspaces: {
    // `@quantum-chat/scripts` is linked at the root for `pnpm quantum-chat` (scripts/quantum-chat.mjs).
    '.': { ignoreDependencies: ['@quantum-chat/scripts'] },
    // README examples: type-checked and run by checks/packaging, shown verbatim in the READMEs.
    'packages/*': { entry: ['examples/*.{ts,mts,cts}'] },
    'packages/conformance': {},
    'packages/web': {},
    // These examples also use the reference engine, installed beside them in the packaging test.
    'packages/core': { entry: ['examples/*.{ts,mts,cts}'], ignoreDependencies: ['@quantum-chat/engine-reference'] },
    'packages/engine-llama': { entry: ['examples/*.{ts,mts,cts}'], ignoreDependencies: ['@quantum-chat/engine-reference'] },
    // The MCP test starts the server's `bin`, found through its package.json.
    'packages/client': { entry: ['examples/*.{ts,mts,cts}'], ignoreDependencies: ['@modelcontextprotocol/server-everything'] },
    // Profiling scripts, run by hand (`node --cpu-prof apps/bench/profile/<name>.mjs`).
    'apps/bench': { entry: ['profile/*.mjs'] },
    'apps/*': {},
    'examples/*': {},
    // The programs the packaging test runs inside fresh projects outside the workspace.
    // express and fastify are installed into those projects; better-sqlite3 is found through
    // access-control's own dependency (its prebuilt binary is copied).
    'checks/packaging': { entry: ['fixtures/*'], ignoreDependencies: ['express', 'fastify', 'better-sqlite3'] },
    // The runtimes' binaries are started by path; the core is what the bundle under test holds.
    'checks/runtimes': { ignoreDependencies: ['bun', 'deno', 'workerd', '@quantum-chat/core'] },
    'checks/*': {},
    // Scripts the root package.json and .ci/run start by path.
    scripts: { entry: ['*.mjs'] },
  },
};

export default config;
