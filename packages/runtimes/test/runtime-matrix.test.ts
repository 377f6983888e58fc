/**
 * The runtime matrix: the handler's fetch face serves the shared conformance cases (JSON,
 * streams byte for byte, tools, errors, body rules, keys and signatures) on Cloudflare's
 * workerd, Bun and Deno, each installed from the npm registry and started here as a child
 * process on 127.0.0.1 and a free port. One bundle (the core, the replay engine, the cases)
 * serves every case; the runner talks to it over real HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCases, remoteCaseHost, runServerConformance, toPortableCase } from '@quantum-chat/conformance';
import { afterAll, beforeAll, describe } from 'vitest';
import { bundleCaseServer } from '../src/bundle-case-server.js';
import { runtimes, type RunningRuntime } from '../src/runtimes.js';

const cases = loadCases();

/**
 * workerd forbids code generation from strings (`new Function`), which Ajv needs to check a
 * JSON Schema: while the core depends on Ajv, the cases with tool or response-format schemas
 * fail there (400 "Code generation from strings disallowed"). Listed only while Ajv is a
 * dependency, so the list goes away with it and these cases must then pass.
 */
const coreDependencies = (createRequire(import.meta.url)('@quantum-chat/core/package.json') as { dependencies: Record<string, string> }).dependencies;
const codegenFailures = [
  'chat/logprobs-json',
  'chat/multi-turn-tool-result',
  'chat/reasoner-tool-stream-openai-option',
  'tools/parallel-tool-calls-json',
  'tools/parallel-tool-calls-stream',
  'tools/text-and-tool-call-json',
  'tools/tool-call-json',
  'tools/tool-call-stream',
  'validation/invalid-tool-schema',
  'validation/tool-choice-unknown-tool',
];
const knownFailures: Record<string, string[]> = { workerd: 'ajv' in coreDependencies ? codegenFailures : [] };
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
    runServerConformance(runtime.name, async (_options, testCase) => remoteCaseHost(running!.origin, testCase), {
      cases,
      knownFailures: knownFailures[runtime.name] ?? [],
    });
  });
}
