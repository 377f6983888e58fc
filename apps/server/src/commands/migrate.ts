import { parseArgs } from 'node:util';
import { describeStore, openStore } from '../open-store.js';
import type { Command } from './command.js';
import { commandStoreConfig, storeOptions, storeOptionsUsage } from './command-store.js';

const usage = `Usage: quantum-chat migrate [--config <file>] [--database-url <url> | --data-dir <dir>]

Creates or upgrades the store's schema: PostgreSQL when DATABASE_URL (or databaseUrl) is set,
else SQLite in the data directory. Servers also migrate when they start; running it while
servers run is safe, and running it twice does nothing the second time.

Options:
${storeOptionsUsage}
`;

/** `quantum-chat migrate`. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: "Create or upgrade the store's schema",
  usage,
  async run(args, context) {
    const { values } = parseArgs({ args, options: storeOptions, strict: true, allowPositionals: false });
    const config = commandStoreConfig(values, context);
    const store = openStore(config, context.cwd);
    try {
      const { from, to } = await store.migrate();
      const where = describeStore(config, context.cwd);
      context.stdout.write(from === to ? `The store at ${where} is up to date (schema version ${to}).\n` : `Migrated the store at ${where} from schema version ${from} to ${to}.\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
