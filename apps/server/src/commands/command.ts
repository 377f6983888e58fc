/** What a command may touch: its output streams, the environment and the working directory. */
export interface CommandContext {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The path the CLI was started from (`process.argv[1]`): how the user runs it, for the commands messages suggest. */
  scriptPath?: string;
}

/**
 * A `quantum-chat` subcommand. Parse `args` with `node:util` `parseArgs`; resolve with the
 * process exit code. A `parseArgs` error is reported by the CLI as a usage error.
 *
 * @example
 * export const helloCommand: Command = {
 *   name: 'hello', summary: 'Say hello', usage: 'quantum-chat hello',
 *   async run(_args, context) { context.stdout.write('hello\n'); return 0; },
 * };
 */
export interface Command {
  name: string;
  /** One line for `quantum-chat --help`. */
  summary: string;
  /** The text of `quantum-chat <name> --help`. */
  usage: string;
  run(args: string[], context: CommandContext): Promise<number>;
}
