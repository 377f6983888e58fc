#!/usr/bin/env node
// The `quantum-chat` bin. Commands live in ./commands (one file each, listed in ./commands/index.ts).
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), scriptPath: process.argv[1] }).then(
  (code) => {
    // Exit explicitly: a store or a Redis client left open must not keep a stopped server alive.
    process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`quantum-chat: ${String(error)}\n`);
    process.exit(1);
  },
);
