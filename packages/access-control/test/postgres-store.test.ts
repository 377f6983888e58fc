import { afterAll, beforeAll, describe } from 'vitest';
import { createPostgresKeyStore } from '../src/postgres-key-store.js';
import { describeKeyStoreContract } from './key-store-contract.js';
import { postgresAvailable, postgresSkipMessage, startPostgresServer, type PostgresServer } from './postgres-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

describe.skipIf(!postgresAvailable)('createPostgresKeyStore (a real PostgreSQL server)', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  describeKeyStoreContract('createPostgresKeyStore', {
    open: async () => createPostgresKeyStore(await server.createDatabase()),
    openShared: async () => {
      const url = await server.createDatabase();
      return [createPostgresKeyStore(url), createPostgresKeyStore(url)];
    },
  });
});
