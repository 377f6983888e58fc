import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlamaEngine, ModelLoadError } from '../src/index.js';
import { writeTinyGguf } from '../src/testing.js';
import { collect, engineRequest } from './helpers/engine-request.js';
import { tinyModelFile } from './helpers/tiny-model.js';

let scratch: Awaited<ReturnType<typeof tinyModelFile>>;

beforeAll(async () => {
  scratch = await tinyModelFile();
});

afterAll(async () => {
  await scratch?.remove();
});

/** The load failure of a file: a ModelLoadError whose message is one sentence, without a stack in it. */
async function loadFailure(modelPath: string): Promise<ModelLoadError> {
  const engine = createLlamaEngine({ modelPath, threads: 1 });
  const failure = await engine.ready.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ModelLoadError);
  const error = failure as ModelLoadError;
  expect(error.message).not.toMatch(/\n|\s at /);
  expect(error.message).toMatch(/\.$/);
  return error;
}

describe('a model file the engine cannot serve', () => {
  it('names a missing file', async () => {
    const path = join(scratch.directory, 'nowhere.gguf');
    const error = await loadFailure(path);
    expect(error.reason).toBe('missing');
    expect(error.message).toBe(`The model file ${path} does not exist.`);
  });

  it('names a directory given as the file', async () => {
    const error = await loadFailure(scratch.directory);
    expect(error.reason).toBe('missing');
    expect(error.message).toContain('is not a file');
  });

  it('names a file that is not GGUF', async () => {
    const path = join(scratch.directory, 'model.safetensors');
    await writeFile(path, '{"__metadata__": {}}');
    const error = await loadFailure(path);
    expect(error.reason).toBe('not-gguf');
    expect(error.message).toContain('is not a GGUF model');
  });

  it('names a GGUF file cut short', async () => {
    const path = join(scratch.directory, 'cut.gguf');
    await writeFile(path, Buffer.from('GGUF\x03\x00\x00\x00', 'latin1'));
    const error = await loadFailure(path);
    expect(error.reason).toBe('not-gguf');
    expect(error.message).toContain('is not a readable GGUF model');
  });

  it('names an architecture llama.cpp does not know', async () => {
    const path = await writeTinyGguf(join(scratch.directory, 'strange.gguf'), { architecture: 'quantumformer' });
    const error = await loadFailure(path);
    expect(error.reason).toBe('unknown-architecture');
    expect(error.message).toContain("has the architecture 'quantumformer', which this llama.cpp does not know");
  });

  it('names a model too large for the memory', async () => {
    // Claims 3 × 32 × 2^29 × 4 bytes = 192 GiB of weights in a file of a few KB.
    const path = await writeTinyGguf(join(scratch.directory, 'huge.gguf'), { claimedFeedForward: 2 ** 29 });
    const error = await loadFailure(path);
    expect(error.reason).toBe('too-large');
    expect(error.message).toMatch(/needs 192\.\d GiB for its weights, more than this machine's memory/);
  });

  it('answers requests with 503 engine_unavailable, saying why', async () => {
    const engine = createLlamaEngine({ modelPath: join(scratch.directory, 'nowhere.gguf') });
    await expect(collect(engine, engineRequest())).rejects.toMatchObject({ code: 'engine_unavailable', status: 503, message: expect.stringContaining('does not exist') });
  });
});
