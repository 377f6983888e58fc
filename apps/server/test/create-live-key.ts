import { lastLine, runBuiltCli } from './run-cli.js';

/**
 * A live key of the `default` organisation (the elite one a first start seeds), made with
 * `quantum-chat keys create` on the server's data directory.
 *
 * @example
 * const liveKey = await createLiveKey(server.dataDir);
 */
export async function createLiveKey(dataDir: string): Promise<string> {
  const created = await runBuiltCli(['keys', 'create', '--org', 'default', '--kind', 'live', '--data-dir', dataDir]);
  if (created.code !== 0) throw new Error(`keys create failed (${created.code}): ${created.stderr}`);
  return lastLine(created.stdout);
}
