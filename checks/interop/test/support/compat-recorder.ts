import { mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, type TestContext } from 'vitest';

/** The committed results: `scripts/render-compat-table.mjs` renders the README tables from them. */
export const committedCompatResultsPath = fileURLToPath(new URL('../../results/compat.json', import.meta.url));

/** Where a test run writes: an ignored file, so `pnpm test` leaves tracked files alone. */
export const lastRunCompatResultsPath = fileURLToPath(new URL('../../test-output/compat.json', import.meta.url));

/**
 * Where every suite writes its proven cells: the committed file only when asked to record
 * (`pnpm --filter @quantum-chat/interop compat:record` sets `QUANTUM_CHAT_INTEROP_RECORD=1`).
 */
export function compatResultsPathFor(env: Readonly<Record<string, string | undefined>>): string {
  return env.QUANTUM_CHAT_INTEROP_RECORD === '1' ? committedCompatResultsPath : lastRunCompatResultsPath;
}

const compatResultsPath = compatResultsPathFor(process.env);

/**
 * How a request reaches the server: the spec's stream format at `/v1`, the OpenAI format at
 * `/compat/v1`, or `/v1` with the `x-stream-format: openai` header. `any` is for behaviour no
 * stream format changes (HTTP errors, retries).
 */
export type FormatId = 'quantum' | 'openai-path' | 'openai-header' | 'any';

/** One proven cell: a client at a version, in a format, doing one thing, works or fails with what. */
export interface CompatCell {
  /** Display name of the client, e.g. `openai`, `ai + @ai-sdk/openai-compatible`. */
  client: string;
  /** The installed version(s), read from the package.json that ran. */
  version: string;
  format: FormatId;
  /** What was exercised, e.g. `stream`, `tools`, `errors`. */
  feature: string;
  /** The model, where the cell was proven per model. */
  model?: string;
  outcome: 'works' | 'fails';
  /** For `fails`: the concrete failure the test asserted. For `works`: an optional caveat. */
  detail?: string;
}

export interface CompatRecord extends CompatCell {
  suite: string;
  /** The full name of the test that proved it. */
  test: string;
}

/** No timestamps: recording the same results twice gives the same file. */
interface CompatFile {
  suites: Record<string, { records: CompatRecord[] }>;
}

/** Reads a dependency's installed version (aliases like `openai4` included). */
export function installedVersion(packageName: string): string {
  const url = new URL(`../../node_modules/${packageName}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

function withLock<T>(action: () => T): T {
  // Suites run in parallel workers: a directory is an atomic lock on every platform.
  const lock = `${compatResultsPath}.lock`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`Could not lock ${lock}; remove it if no test run is active.`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return action();
  } finally {
    rmdirSync(lock);
  }
}

/**
 * Collects the cells a suite proves. `prove(cell)` is called inside a test (`prove(cell, context)`
 * in a concurrent one), and the cell is kept only if that test passes; `flush()` (in `afterAll`) replaces the suite's section of
 * the results file (`compatResultsPath`), so each cell in the README traces back to a passing test.
 *
 * @example
 * const compat = createCompatRecorder('openai-sdk');
 * afterAll(() => compat.flush());
 * it('should stream', () => { ...; compat.prove({ client: 'openai', version, format: 'quantum', feature: 'stream', outcome: 'works' }); });
 */
export function createCompatRecorder(suite: string) {
  const records: CompatRecord[] = [];
  return {
    prove(cell: CompatCell, context?: TestContext): void {
      // Concurrent tests must pass their context: the global hooks cannot tell them apart.
      const test = context ? context.task.fullTestName : (expect.getState().currentTestName ?? '(unknown test)');
      const onFinished = context ? context.onTestFinished : onTestFinished;
      onFinished((finished) => {
        if (finished.task.result?.state === 'pass') records.push({ suite, test, ...cell });
      });
    },
    flush(): void {
      mkdirSync(dirname(compatResultsPath), { recursive: true });
      withLock(() => {
        let file: CompatFile = { suites: {} };
        try {
          file = JSON.parse(readFileSync(compatResultsPath, 'utf8')) as CompatFile;
        } catch {
          // First run, or a file from an older layout: start over.
        }
        // Concurrent tests finish in any order: sort, so a rerun with the same results is the same file.
        const key = (record: CompatRecord) => [record.client, record.version, record.format, record.feature, record.model ?? '', record.outcome, record.detail ?? '', record.test].join('\u0000');
        file.suites[suite] = { records: [...records].sort((a, b) => key(a).localeCompare(key(b))) };
        const sorted: CompatFile = { suites: Object.fromEntries(Object.entries(file.suites).sort(([a], [b]) => a.localeCompare(b)).map(([name, { records: kept }]) => [name, { records: kept }])) };
        writeFileSync(`${compatResultsPath}.tmp`, `${JSON.stringify(sorted, null, 2)}\n`);
        renameSync(`${compatResultsPath}.tmp`, compatResultsPath);
      });
    },
  };
}
