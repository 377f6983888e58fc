import { describe, expect, it } from 'vitest';
import type { CommandContext } from './commands/command.js';
import { commands } from './commands/index.js';
import { runCli } from './run-cli.js';

function captureContext(): CommandContext & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: {},
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}

describe('runCli', () => {
  it('should list every registered command on --help', async () => {
    const context = captureContext();
    expect(await runCli(['--help'], context)).toBe(0);
    for (const command of Object.values(commands)) expect(context.out()).toContain(`  ${command.name}`);
    expect(context.out()).toContain('serve');
  });

  it("should print a command's usage on <command> --help and on help <command>", async () => {
    const first = captureContext();
    expect(await runCli(['serve', '--help'], first)).toBe(0);
    expect(first.out()).toContain('--config <file>');
    const second = captureContext();
    expect(await runCli(['help', 'serve'], second)).toBe(0);
    expect(second.out()).toBe(first.out());
  });

  it('should refuse an unknown command with exit code 2', async () => {
    const context = captureContext();
    expect(await runCli(['frobnicate'], context)).toBe(2);
    expect(context.err()).toContain("unknown command 'frobnicate'");
  });

  it('should report an unknown option as a usage error with exit code 2', async () => {
    const context = captureContext();
    expect(await runCli(['serve', '--colour', 'blue'], context)).toBe(2);
    expect(context.err()).toContain("Unknown option '--colour'");
  });

  it('should run serve by default and report a bad config with exit code 1', async () => {
    const context = captureContext();
    expect(await runCli(['--config', 'does-not-exist.json'], context)).toBe(1);
    expect(context.err()).toMatch(/^quantum-chat serve: Cannot read the config file .*does-not-exist\.json \(named by --config\): file not found\./);
  });
});
