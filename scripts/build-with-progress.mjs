// Builds workspace packages with turbo and shows progress instead of turbo's own output: a
// first start on a fresh clone builds for minutes, and silence then looks like a hang. Turbo's
// logs are kept and shown only if the build fails; when everything is cached nothing is shown.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The turbo launcher of the workspace at `root`, run with this Node. */
export function turboCommand(root, filter) {
  const turbo = createRequire(join(root, 'package.json')).resolve('turbo/bin/turbo');
  // --json: one JSON object per line (turbo's own lines and each task's, by source).
  return [process.execPath, turbo, 'run', 'build', `--filter=${filter}`, '--json'];
}

const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/**
 * Turns turbo's NDJSON events into progress lines. Pure, for the tests: feed it events, read
 * what it wrote.
 */
export function createBuildProgress(write, now = Date.now) {
  const started = now();
  let total;
  let seen = 0;
  let building = 0;
  const executed = new Set();
  const log = [];
  return {
    /** One turbo event: `{ source, level, text }`. */
    event({ source, level, text }) {
      if (typeof text !== 'string') return;
      log.push({ source, level, text });
      if (source === 'turbo') {
        const match = /Running build in (\d+) packages?/.exec(text);
        if (match) total = Number(match[1]);
        return;
      }
      // A task's first line says whether turbo replays it from its cache or runs it.
      const task = /^cache (hit|miss|bypass)/.exec(text);
      if (task === null) return;
      seen += 1;
      if (task[1] === 'hit') return;
      if (building === 0) write('Building the quantum-chat packages (minutes on a fresh clone; later starts reuse the build)...\n');
      executed.add(source);
      building += 1;
      write(`  [${seen}/${total ?? '?'}] building ${source.replace(/#build$/, '')}\n`);
    },
    /** Called now and then while turbo runs, so that a long step still shows life. */
    tick() {
      if (building > 0) write(`  ...still building (${seconds(now() - started)} so far)\n`);
    },
    /** Called when turbo exits. */
    finish(code) {
      if (code === 0) {
        if (building > 0) write(`Built ${building} package${building === 1 ? '' : 's'} in ${seconds(now() - started)}.\n`);
        return true;
      }
      write(`The build failed (turbo exited with ${code}). Its output:\n`);
      for (const entry of log) {
        if (entry.source === 'turbo' || executed.has(entry.source)) write(`${entry.source === 'turbo' ? '' : `${entry.source}: `}${entry.text}\n`);
      }
      return false;
    },
  };
}

/**
 * Runs `command` (turbo with `--json`) and reports progress through `write`; resolves true when
 * the build succeeded.
 *
 * @example
 * const ok = await buildWithProgress(turboCommand(root, '@quantum-chat/server...'), { cwd: root, write: (text) => process.stderr.write(text) });
 */
export function buildWithProgress(command, { cwd, write, tickMs = 15_000, env = process.env }) {
  const progress = createBuildProgress(write);
  const child = spawn(command[0], command.slice(1), { cwd, env: { ...env, TURBO_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setInterval(() => progress.tick(), tickMs);
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      progress.event(JSON.parse(line));
    } catch {
      progress.event({ source: 'turbo', level: 'info', text: line });
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => progress.event({ source: 'turbo', level: 'error', text: line }));
  return new Promise((resolve) => {
    child.on('error', (error) => {
      clearInterval(timer);
      write(`Could not run the build: ${error.message}\n`);
      resolve(false);
    });
    child.on('close', (code) => {
      clearInterval(timer);
      resolve(progress.finish(code ?? 1));
    });
  });
}
