import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseConfigFile, resolveConfig } from '../src/config.js';
import { createQuantumServer } from '../src/create-server.js';

/** The ready server in this process, listening on 127.0.0.1 and a free port, with a fresh data directory. */
export interface InProcessServer {
  app: FastifyInstance;
  origin: string;
  /** The data directory the server's SQLite store is in (another instance may share it). */
  dataDir: string;
  /** The test key printed on first start (organisation `default`, elite plan). */
  testKey: string;
  /** The data directory (key store) the server uses. */
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts `createQuantumServer` with a config file's fields (validated as the CLI would), for
 * tests that need to reach into the process (its heap, its clock).
 *
 * @example
 * const server = await startInProcessServer({ cors: { origins: '*' } });
 * onTestFinished(() => server.close());
 */
export async function startInProcessServer(file: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<InProcessServer> {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-inproc-'));
  const config = resolveConfig(parseConfigFile({ logLevel: 'silent', dataDir: join(directory, 'data'), ...file }), env);
  const app = await createQuantumServer(config, { cwd: directory, env });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // As `quantum-chat serve` does: the first start's key is made once the server listens.
  const testKey = (await app.prepareStarterKeys()).createdKey ?? '';
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    app,
    origin: `http://127.0.0.1:${port}`,
    dataDir: config.dataDir,
    testKey,
    dataDir: join(directory, 'data'),
    async close() {
      await app.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
