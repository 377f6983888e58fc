import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryResponseStore } from '@quantum-chat/core/responses';
import { afterAll, describe } from 'vitest';
import { createPostgresStore } from '../src/postgres-store/index.js';
import { createPostgresResponseStore } from '../src/postgres-store/responses.js';
import { createSqliteStore } from '../src/sqlite-store/index.js';
import { createSqliteResponseStore } from '../src/sqlite-store/responses.js';
import type { ServiceStore } from '../src/service-store/index.js';
import type { SqlResponseStore } from '../src/sql-store/sql-response-store.js';
import { postgresAvailable, postgresServerForSuite, postgresSkipMessage } from './postgres-server.js';
import { describeResponseStoreContract } from './response-store-contract.js';

/** A response store sharing a service store's connection; closing it closes both, as the server does. */
function closingBoth(responses: SqlResponseStore, store: ServiceStore): SqlResponseStore {
  return {
    ...responses,
    async close() {
      await responses.close();
      await store.close();
    },
  };
}

const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-responses-'));
let files = 0;
const nextPath = () => join(directory, `store-${++files}.sqlite`);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// The core's own store (the handler's default): every store answers alike.
describeResponseStoreContract('createMemoryResponseStore (the core)', { open: async (options) => createMemoryResponseStore(options) });

describeResponseStoreContract('createSqliteResponseStore (sharing a createSqliteStore)', {
  open: async (options) => {
    const store = createSqliteStore(nextPath());
    return closingBoth(createSqliteResponseStore(store, options), store);
  },
  openShared: async (options) => {
    const path = nextPath();
    return [createSqliteResponseStore(path, options), createSqliteResponseStore(path, options)];
  },
});

if (!postgresAvailable) console.warn(postgresSkipMessage);

describe.skipIf(!postgresAvailable)('createPostgresResponseStore (a real PostgreSQL server)', () => {
  const server = postgresServerForSuite();

  describeResponseStoreContract('createPostgresResponseStore (sharing a createPostgresStore)', {
    open: async (options) => {
      const store = createPostgresStore(await server().createDatabase());
      return closingBoth(createPostgresResponseStore(store, options), store);
    },
    openShared: async (options) => {
      const url = await server().createDatabase();
      return [createPostgresResponseStore(url, options), createPostgresResponseStore(url, options)];
    },
  });
});
