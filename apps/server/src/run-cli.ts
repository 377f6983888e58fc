import { ConfigError } from './config.js';
import type { CommandContext } from './commands/command.js';
import { commands, defaultCommandName } from './commands/index.js';

function overview(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.values(commands).map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: quantum-chat [command] [options]\n\nCommands:\n${lines.join('\n')}\n\nWithout a command, \`${defaultCommandName}\` runs. \`quantum-chat <command> --help\` shows a command's options.\n`;
}

function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * Runs the `quantum-chat` CLI and resolves with the exit code: 0 on success, 1 on a failure,
 * 2 on a usage error.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 */
export async function runCli(argv: readonly string[], context: CommandContext): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' && rest[0] !== undefined ? commands[rest[0]] : undefined;
    context.stdout.write(topic?.usage ?? overview());
    return 0;
  }
  const named = first !== undefined && !first.startsWith('-');
  const command = commands[named ? first : defaultCommandName];
  if (command === undefined) {
    context.stderr.write(`quantum-chat: unknown command '${first}'.\n\n${overview()}`);
    return 2;
  }
  const args = named ? rest : [...argv];
  if (args.includes('--help') || args.includes('-h')) {
    context.stdout.write(command.usage);
    return 0;
  }
  try {
    return await command.run(args, context);
  } catch (error) {
    if (isUsageError(error)) {
      context.stderr.write(`quantum-chat ${command.name}: ${(error as Error).message}\n\n${command.usage}`);
      return 2;
    }
    const message = error instanceof ConfigError ? error.message : `${(error as Error)?.message ?? String(error)}`;
    context.stderr.write(`quantum-chat ${command.name}: ${message}\n`);
    return 1;
  }
}
