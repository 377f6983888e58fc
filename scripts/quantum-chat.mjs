#!/usr/bin/env node
// `pnpm quantum-chat …` and `pnpm start` in a clone. Builds the server and the packages it uses
// (turbo, cached: nothing to do and nothing shown when the sources did not change; progress on
// stderr when they did), then runs the built CLI in this process, from apps/server (where its
// data directory and config file are), so that what it prints is only the CLI's own.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildWithProgress, turboCommand } from './build-with-progress.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const serverDir = join(root, 'apps/server');

const built = await buildWithProgress(turboCommand(root, '@quantum-chat/server...'), { cwd: root, write: (text) => process.stderr.write(text) });
if (!built) process.exit(1);
// The commands the server suggests (e.g. for making a key) are written the way this user runs them.
process.env.QUANTUM_CHAT_CLI_NAME ??= 'pnpm quantum-chat';
process.chdir(serverDir);
await import(pathToFileURL(join(serverDir, 'dist/cli.js')).href);
