import { auditCommand } from './audit.js';
import type { Command } from './command.js';
import { keysCommand } from './keys.js';
import { migrateCommand } from './migrate.js';
import { orgsCommand } from './orgs.js';
import { serveCommand } from './serve.js';
import { usageCommand } from './usage.js';

/**
 * Every `quantum-chat` subcommand, in the order `--help` lists them. To add one, write
 * `src/commands/<name>.ts` exporting a `Command` and add one line here.
 */
export const commands: Readonly<Record<string, Command>> = {
  serve: serveCommand,
  keys: keysCommand,
  orgs: orgsCommand,
  usage: usageCommand,
  audit: auditCommand,
  migrate: migrateCommand,
};

/** The command run when none is named: `quantum-chat` alone starts the server. */
export const defaultCommandName = 'serve';
