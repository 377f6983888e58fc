import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';

/** Compiles the app (`pnpm build` of this package alone: the workspace packages are already built). */
export async function runAppBuild(appDir: string): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--pretty', 'false'], { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  build.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  build.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = await once(build, 'close');
  if (code !== 0) throw new Error(`tsc -p tsconfig.build.json exited ${code}:\n${output}`);
}

/** Resolves with the first match of `pattern` in the child's stdout (read from its start). */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  const state = child as ChildProcess & { seen?: string };
  if (state.seen === undefined) {
    state.seen = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (state.seen += chunk));
  }
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = state.seen!.match(pattern);
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`the app exited (${code}) before printing ${pattern}:\n${state.seen}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${state.seen}`));
    }, timeoutMs);
    function cleanup() {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.off('exit', onExit);
    }
    child.stdout!.on('data', check);
    child.on('exit', onExit);
    check();
  });
}
