// A ready server started as `cli.js serve` in a child process: waiting for it to listen, and
// stopping it as an operator would (SIGINT, then SIGKILL if it has not left in 15 s).
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The port the server logged it listens on (polled for up to 30 s); throws with its last output if it exits first. */
export async function listeningPort(child, logPath, failurePath = logPath) {
  for (let attempt = 0; attempt < 300; attempt++) {
    await sleep(100);
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(logPath, 'utf8'))?.[1];
    if (port !== undefined) return Number(port);
    if (child.exitCode !== null) throw new Error(`the ready server exited: ${readFileSync(failurePath, 'utf8').slice(-2000)}`);
  }
  throw new Error('the ready server did not start');
}

/** Stops the server gracefully, or kills it after 15 s. */
export async function stopServer(child) {
  child.kill('SIGINT');
  await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(15_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
