import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatCompletionSchema } from '@quantum-chat/core/schemas';
import { tinyGgufBytes, writeTinyGguf } from '@quantum-chat/engine-llama/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeHuggingFace } from './fake-hugging-face.js';
import { runBuiltCli } from './run-cli.js';
import { startInProcessServer } from './in-process-server.js';
import { startServerProcess } from './server-process.js';

let directory: string;
let modelPath: string;
/** One CPU thread: the tests share a busy machine, where llama.cpp's spinning threads wait on each other. */
const oneThread = Object.fromEntries(['quantum-lite', 'quantum-flash', 'quantum-pro', 'quantum-reasoner'].map((id) => [id, { engine: 'llama', file: 'set-by---model', threads: 1, contextSize: 1024 }]));

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'serve-llama-'));
  modelPath = await writeTinyGguf(join(directory, 'tiny.gguf'));
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function chat(origin: string, apiKey: string, body: Record<string, unknown>) {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8, temperature: 0, ...body }),
  });
}

describe('quantum-chat serve --model <file.gguf>', () => {
  it('loads the file, says what it is, and answers live keys from it (test keys from the reference engine)', async () => {
    const server = await startServerProcess({ models: oneThread }, {}, ['--model', modelPath]);
    onTestFinished(() => server.dispose());
    await server.waitForStdout(/Model loaded in \d+ ms: .*tiny\.gguf \(\d+\.\d KiB, llama\) on CPU, context 1024 tokens, 1 at once; serving quantum-lite, quantum-flash, quantum-pro, quantum-reasoner\./, 30_000);
    const ready = await fetch(`${server.origin}/readyz`);
    expect(ready.status).toBe(200);

    const liveKey = await createLiveKey(server.dataDir);
    const live = chatCompletionSchema.parse(await (await chat(server.origin, liveKey, {})).json());
    expect(live.model).toBe('quantum-flash');
    expect(live.usage.completion_tokens).toBeGreaterThan(0);
    expect(live.usage.completion_tokens).toBeLessThanOrEqual(8);
    // Every id answers from the one loaded model: the same prompt, the same greedy answer.
    const pro = chatCompletionSchema.parse(await (await chat(server.origin, liveKey, { model: 'quantum-pro' })).json());
    expect(pro.choices[0]!.message.content).toBe(live.choices[0]!.message.content);

    const streamed = await chat(server.origin, liveKey, { stream: true });
    expect(streamed.status).toBe(200);
    const text = await streamed.text();
    expect(text).toContain('data: [DONE]');

    const test = chatCompletionSchema.parse(await (await chat(server.origin, server.firstStartKey!, {})).json());
    expect(test.choices[0]!.message.content).not.toBe(live.choices[0]!.message.content);
    expect(server.stderr()).not.toMatch(/\n\s+at /);
  }, 60_000);

  it.each([
    ['a missing file', 'missing.gguf', /The model file .*missing\.gguf does not exist\./],
    ['a file that is not GGUF', 'notes.txt', /The file .*notes\.txt is not a GGUF model/],
    ['an unknown architecture', 'strange.gguf', /has the architecture 'quantumformer', which this llama\.cpp does not know/],
    ['a model too large for the memory', 'huge.gguf', /needs \d+\.\d GiB for its weights, more than this machine's memory/],
  ])('says %s in one sentence and exits 1', async (_, name, message) => {
    const path = join(directory, name);
    if (name === 'notes.txt') writeFileSync(path, 'not a model');
    if (name === 'strange.gguf') await writeTinyGguf(path, { architecture: 'quantumformer' });
    if (name === 'huge.gguf') await writeTinyGguf(path, { claimedFeedForward: 2 ** 29 });
    const server = await startServerProcess({ models: oneThread }, {}, ['--model', path]);
    onTestFinished(() => server.dispose());
    expect(await server.exited).toBe(1);
    const stderr = server.stderr();
    expect(stderr).toMatch(message);
    const lines = stderr.trim().split('\n').filter((line) => line.startsWith('quantum-chat serve:'));
    expect(lines).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at |Error:/);
  }, 60_000);

  it('embedded: /readyz and live requests say why a model could not be loaded; test keys still answer', async () => {
    const missing = join(directory, 'not-there.gguf');
    const server = await startInProcessServer({ models: { 'quantum-flash': { engine: 'llama', file: missing } } });
    onTestFinished(() => server.close());
    const loadFailure = await server.app.localModels[0]!.engine.ready.then(
      () => undefined,
      (error: Error) => error,
    );
    expect(loadFailure?.message).toBe(`The model file ${missing} does not exist.`);
    const ready = await fetch(`${server.origin}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).error.message).toBe(`Not ready: the model ${missing} could not be loaded (The model file ${missing} does not exist.).`);
    const liveKey = await createLiveKey(server.dataDir);
    const live = await chat(server.origin, liveKey, {});
    expect(live.status).toBe(503);
    expect((await live.json()).error).toMatchObject({ code: 'engine_unavailable', message: expect.stringContaining('does not exist') });
    expect((await chat(server.origin, server.testKey, {})).status).toBe(200);
  }, 60_000);

  it('downloads a hf: model once into the data directory, with a progress bar, and finds it there on the next start', async () => {
    const hub = await startFakeHuggingFace(tinyGgufBytes());
    onTestFinished(() => hub.close());
    const uri = 'hf:someone/tiny-GGUF/tiny.gguf';
    const first = await startServerProcess({ models: oneThread }, { HF_ENDPOINT: hub.endpoint }, ['--model', uri]);
    onTestFinished(() => first.dispose());
    await first.waitForStdout(/Model loaded in \d+ ms: .*hf_someone_tiny\.gguf \(77\.9 KiB, llama\) on CPU/, 30_000);
    expect(first.stderr()).toContain(`Downloading ${uri} [##############################] 100% of 0.1 MiB`);
    expect(first.stdout()).toContain(join(first.dataDir, 'models'));
    const liveKey = await createLiveKey(first.dataDir);
    expect((await chat(first.origin, liveKey, {})).status).toBe(200);
    expect(hub.downloads()).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    await first.exited;
    // The host gone: the next start with the same data directory needs no network.
    await hub.close();
    const second = await startServerProcess({ models: oneThread, dataDir: first.dataDir }, { HF_ENDPOINT: hub.endpoint }, ['--model', uri]);
    onTestFinished(() => second.dispose());
    await second.waitForStdout(/Model loaded in \d+ ms: .*hf_someone_tiny\.gguf/, 30_000);
    expect(second.stderr()).not.toContain('Downloading');
  }, 90_000);

  it('says in one sentence that Hugging Face cannot be reached, and does not start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'serve-llama-hf-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    // A port nothing listens on stands for an unreachable Hugging Face.
    const result = await runBuiltCli(['serve', '--model', 'hf:someone/some-model-GGUF/model-q4_k_m.gguf'], {
      cwd: dataDir,
      env: { HOST: '127.0.0.1', PORT: '0', QUANTUM_CHAT_DATA_DIR: join(dataDir, 'data'), HF_ENDPOINT: 'http://127.0.0.1:2/' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'quantum-chat serve: Cannot download hf:someone/some-model-GGUF/model-q4_k_m.gguf: 127.0.0.1:2 is not reachable from this machine (the connection was refused: ECONNREFUSED); download the .gguf file where it is reachable and pass its path instead.',
    );
  }, 60_000);
});
