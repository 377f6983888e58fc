import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  cwd: string;
  /** Killed (SIGKILL) after this long; the result then says so. */
  timeoutMs?: number;
  /** Reject unless the command exits 0 (the rejection carries its output). */
  check?: boolean;
  /** Added to the user's environment. */
  env?: Record<string, string>;
}

/**
 * The environment of a command that stands for a user's shell: without the `npm_*` variables
 * pnpm sets for scripts (an `npm install` would read them as its own config) and without
 * vitest's `NODE_OPTIONS`.
 */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|NODE_OPTIONS$|VITEST|TEST$)/i.test(name)) continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0' };
}

/**
 * Runs a command as a user would, collecting its output.
 *
 * @example
 * const { stdout } = await runCommand('npm', ['--version'], { cwd: tmpdir(), check: true });
 */
export function runCommand(command: string, args: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...userEnvironment(), ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const result = { code, stdout, stderr: timedOut ? `${stderr}\n(killed after ${options.timeoutMs} ms)` : stderr };
      if (options.check && code !== 0) {
        const output = `${result.stdout}\n${result.stderr}`.trim().slice(-6000);
        reject(new Error(`\`${command} ${args.join(' ')}\` in ${options.cwd} exited ${code}:\n${output}`));
      } else resolve(result);
    });
  });
}
