import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cliPath = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** What a `quantum-chat` run printed and how it exited. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`node dist/cli.js <args>`) in `cwd` and resolves when it exits.
 *
 * @example
 * const { stdout } = await runBuiltCli(['keys', 'list', '--data-dir', dir]);
 */
export function runBuiltCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The key a `keys create` printed: its last line of stdout. */
export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
