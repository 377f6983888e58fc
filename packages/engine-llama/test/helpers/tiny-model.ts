import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyGguf } from '../../src/testing.js';

/** A directory with the tiny GGUF in it; `remove` deletes both. */
export async function tinyModelFile(): Promise<{ path: string; directory: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'engine-llama-'));
  const path = await writeTinyGguf(join(directory, 'tiny.gguf'));
  return { path, directory, remove: () => rm(directory, { recursive: true, force: true }) };
}
