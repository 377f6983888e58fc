import { describe } from 'vitest';
import { createPostgresStore } from '../src/postgres-store/index.js';
import { describeServiceStoreContract } from './service-store-contract.js';
import { postgresAvailable, postgresServerForSuite, postgresSkipMessage } from './postgres-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

describe.skipIf(!postgresAvailable)('createPostgresStore (a real PostgreSQL server)', () => {
  const server = postgresServerForSuite();

  describeServiceStoreContract('createPostgresStore', {
    open: async () => createPostgresStore(await server().createDatabase()),
    openShared: async () => {
      const url = await server().createDatabase();
      return [createPostgresStore(url), createPostgresStore(url)];
    },
  });
});
