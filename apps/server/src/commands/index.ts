import type { Command } from './command.js';
import { serveCommand } from './serve.js';

/**
 * Every `quantum-chat` subcommand, in the order `--help` lists them. To add one, write
 * `src/commands/<name>.ts` exporting a `Command` and add one line here.
 */
export const commands: Readonly<Record<string, Command>> = {
  serve: serveCommand,
};

/** The command run when none is named: `quantum-chat` alone starts the server. */
export const defaultCommandName = 'serve';
