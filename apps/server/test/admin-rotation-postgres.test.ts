// The admin API's key scenarios (rotation, revival of expired and rotated-out keys) replayed
// over HTTP against a server on PostgreSQL: what the fixtures say holds on every store, and
// the rotation a key carries is read back from the database, not from a process's memory.
import { describe, it, onTestFinished } from 'vitest';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from '../../../packages/access-control/test/postgres-server.js';
import { loadScenarios, replayScenario } from './admin-fixture-runner.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

const scenarioIds = ['keys/rotation', 'keys/revival', 'keys/rotated-revival'];

describe.skipIf(!postgresAvailable)('admin key scenarios on PostgreSQL, over HTTP', { timeout: 120_000 }, () => {
  for (const scenario of loadScenarios().filter((candidate) => scenarioIds.includes(candidate.id))) {
    it(`${scenario.id}: ${scenario.description}`, async () => {
      const pg = await startPostgresServer();
      onTestFinished(() => pg.stop());
      await replayScenario({ ...scenario, config: { ...scenario.config, databaseUrl: await pg.createDatabase() } });
    });
  }
});
