import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFailingUpstream } from './failing-upstream.js';

const require = createRequire(import.meta.url);
const cliPath = join(dirname(require.resolve('@quantum-chat/server/package.json')), 'dist', 'cli.js');

/** The model a live key gets from the failing upstream (test keys always get the reference engine). */
export const failingModel = 'quantum-flash';

/** What `keys create` makes: an organisation (created on first use) with a plan and limits. */
interface KeyRequest {
  organisation: string;
  plan?: 'free' | 'elite';
  kind: 'test' | 'live';
  /** `orgs set-limits` overrides, applied after the key is made. */
  limits?: { requestsPerMinute?: number; tokensPerMinute?: number; tokensPerDay?: number };
}

/** A `quantum-chat serve` process (the real server over HTTP) and what the suite needs of it. */
export interface InteropServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The test key the server printed on first start (organisation `default`, plan `elite`). */
  testKey: string;
  /** Makes a key with the real CLI on the server's store and returns it. */
  createKey(request: KeyRequest): Promise<string>;
  /** How many requests the server logged for `method path` so far (its own request log). */
  countRequests(method: string, path: string): number;
  stdout(): string;
  close(): Promise<void>;
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

async function cli(args: string[]): Promise<string> {
  const result = await runCli(args);
  if (result.code !== 0) throw new Error(`quantum-chat ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return result.stdout;
}

/**
 * Starts the built server CLI (`node apps/server/dist/cli.js serve`) with `HOST=127.0.0.1`
 * `PORT=0` on a fresh data directory, `quantum-flash` mapped to an upstream that dies
 * mid-stream (so live keys can provoke a real mid-stream error), and the `default`
 * organisation's limits raised so a whole client matrix fits in a minute. `reference` paces the
 * reference engine (for what needs a response still running: background + cancel).
 *
 * @example
 * const server = await startInteropServer();
 * afterAll(() => server.close());
 */
export async function startInteropServer(options: { reference?: { firstTokenDelayMs?: number; tokensPerSecond?: number } } = {}): Promise<InteropServer> {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the server first (pnpm turbo run build --filter=@quantum-chat/server...).`);
  const upstream = await startFailingUpstream();
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-interop-'));
  const dataDir = join(directory, 'data');
  const configPath = join(directory, 'quantum-chat.config.json');
  writeFileSync(
    configPath,
    JSON.stringify({ dataDir, ...(options.reference === undefined ? {} : { reference: options.reference }), models: { [failingModel]: { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'broken', idleTimeoutMs: 2_000 } } }),
  );
  const child = spawn(process.execPath, [cliPath, 'serve', '--config', configPath], {
    cwd: directory,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await upstream.close();
    rmSync(directory, { recursive: true, force: true });
  };

  // Start-up loads a tokenizer: seconds on a busy machine.
  const started = Date.now();
  let match: RegExpExecArray | null = null;
  // The first start's key is on stderr, written before the banner (the pipes are read independently).
  while ((match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)) === null || !/API key: qc_test_\w+/.test(stderr)) {
    if (child.exitCode !== null || Date.now() - started > 45_000) {
      await close();
      throw new Error(`The server did not start (exit ${child.exitCode}).\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const origin = match[1]!;
  const testKey = /API key: (qc_test_\w+)/.exec(stderr)![1]!;

  const setLimits = async (organisation: string, limits: NonNullable<KeyRequest['limits']>) => {
    const args = ['orgs', 'set-limits', organisation, '--data-dir', dataDir];
    if (limits.requestsPerMinute !== undefined) args.push('--requests-per-minute', String(limits.requestsPerMinute));
    if (limits.tokensPerMinute !== undefined) args.push('--tokens-per-minute', String(limits.tokensPerMinute));
    if (limits.tokensPerDay !== undefined) args.push('--tokens-per-day', String(limits.tokensPerDay));
    await cli(args);
  };
  await setLimits('default', { requestsPerMinute: 100_000, tokensPerMinute: 1_000_000_000 });

  return {
    origin,
    testKey,
    async createKey(request) {
      const args = ['keys', 'create', '--org', request.organisation, '--kind', request.kind, '--data-dir', dataDir];
      if (request.plan !== undefined) args.push('--plan', request.plan);
      const key = (await cli(args)).trimEnd().split('\n').at(-1)!;
      if (request.limits !== undefined) await setLimits(request.organisation, request.limits);
      return key;
    },
    countRequests(method, path) {
      let count = 0;
      for (const line of stdout.split('\n')) {
        // One access line per request, written when it completes.
        if (!line.includes('"request completed"')) continue;
        const entry = JSON.parse(line) as { req?: { method?: string; url?: string } };
        if (entry.req?.method === method && entry.req.url === path) count += 1;
      }
      return count;
    },
    stdout: () => stdout,
    close,
  };
}
