/**
 * The one command (`pnpm --filter @quantum-chat/example-fastify-app start`) builds, then runs
 * `node dist/main.js`; this runs that program on a free port and talks to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAppBuild, waitForLine } from './start-helpers.js';

const appDir = join(import.meta.dirname, '..');
let child: ChildProcess | undefined;
let baseUrl = '';

beforeAll(async () => {
  await runAppBuild(appDir);
  child = spawn(process.execPath, ['dist/main.js'], { cwd: appDir, env: { ...process.env, PORT: '0', DEMO_USER: 'grace', DEMO_PASSWORD: 'hopper' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await waitForLine(child, /listening on (http:\/\/\S+?);/, 60_000);
  baseUrl = line[1]!;
});
afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

describe('node dist/main.js', () => {
  it('should serve the app and the API, log each request, and stop on SIGTERM', async () => {
    const running = child!;
    expect(await (await fetch(`${baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    const login = await fetch(`${baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"grace","password":"hopper"}' });
    expect(login.status).toBe(200);
    const models = await fetch(`${baseUrl}/v1/models`);
    expect(((await models.json()) as { data: unknown[] }).data).toHaveLength(4);
    // Fastify's pino log, one JSON object per line.
    const logged = await waitForLine(running, /^\{.*"url":"\/v1\/models".*\}$/m);
    expect(JSON.parse(logged[0]!)).toMatchObject({ msg: 'incoming request', req: { method: 'GET', url: '/v1/models' } });
    running.kill('SIGTERM');
    const [code] = await once(running, 'exit');
    expect(code).toBe(0);
  });
});
