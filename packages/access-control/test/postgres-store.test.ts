import { afterAll, beforeAll, describe } from 'vitest';
import { createPostgresStore } from '../src/postgres-store/index.js';
import { describeServiceStoreContract } from './service-store-contract.js';
import { postgresAvailable, postgresSkipMessage, startPostgresServer, type PostgresServer } from './postgres-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

describe.skipIf(!postgresAvailable)('createPostgresStore (a real PostgreSQL server)', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  describeServiceStoreContract('createPostgresStore', {
    open: async () => createPostgresStore(await server.createDatabase()),
    openShared: async () => {
      const url = await server.createDatabase();
      return [createPostgresStore(url), createPostgresStore(url)];
    },
  });
});
