/**
 * The runtime matrix: the handler's fetch face serves the shared conformance cases (JSON,
 * streams byte for byte, tools, errors, body rules, keys and signatures) on Cloudflare's
 * workerd, Bun and Deno, each installed from the npm registry and started here as a child
 * process on 127.0.0.1 and a free port. One bundle (the core, the replay engine, the cases)
 * serves every case; the runner talks to it over real HTTP. workerd runs without any Node
 * compatibility flag and forbids code generation from strings: the core must not need either.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCases, remoteCaseHost, runServerConformance, toPortableCase } from '@quantum-chat/conformance';
import { afterAll, beforeAll, describe } from 'vitest';
import { bundleCaseServer } from '../src/bundle-case-server.js';
import { runtimes, type RunningRuntime } from '../src/runtimes.js';

const cases = loadCases();

let workDirectory = '';
let bundle = '';

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'quantum-chat-runtimes-'));
  bundle = await bundleCaseServer(cases.map(toPortableCase), workDirectory);
});

afterAll(async () => {
  if (workDirectory !== '') await rm(workDirectory, { recursive: true, force: true });
});

for (const runtime of runtimes) {
  describe(runtime.name, () => {
    let running: RunningRuntime | undefined;
    beforeAll(async () => {
      const directory = await mkdtemp(join(workDirectory, `${runtime.name}-`));
      running = await runtime.start(bundle, directory);
    });
    afterAll(async () => {
      await running?.stop();
    });
    runServerConformance(runtime.name, async (_options, testCase) => remoteCaseHost(running!.origin, testCase), { cases });
  });
}
