import { describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeUpstream } from './fake-upstream.js';
import { lastLine, runBuiltCli } from './run-cli.js';
import { startServerProcess } from './server-process.js';

const answer = '{"city":"Oslo"}';
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const structured = {
  messages: [{ role: 'user', content: 'Where? Answer in JSON.' }],
  response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
  logprobs: true,
  top_logprobs: 2,
  presence_penalty: 0.5,
  reasoning_effort: 'low',
  top_k: 40,
  chat_template_kwargs: { enable_thinking: false },
};

describe('quantum-chat serve as a gateway: added models and pass-through', () => {
  it('should list added models after the four, forward what the runtime honours, and pass vendor extras only where configured', async () => {
    const upstream = await startFakeUpstream(answer);
    onTestFinished(() => upstream.close());
    const server = await startServerProcess({
      ownedBy: 'acme',
      models: {
        'quantum-flash': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'llama3.2' },
        'qwen3-8b': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'Qwen/Qwen3-8B', passThrough: 'all', ownedBy: 'qwen' },
        'big-model': { engine: 'reference', requiresPlan: 'elite' },
      },
    });
    onTestFinished(() => server.dispose());

    const list = (await (await fetch(`${server.origin}/v1/models`)).json()) as { data: { id: string; owned_by: string; requires_plan: string | null }[] };
    expect(list.data.map((model) => [model.id, model.owned_by, model.requires_plan])).toEqual([
      ['quantum-lite', 'acme', null],
      ['quantum-flash', 'acme', null],
      ['quantum-reasoner', 'acme', null],
      ['quantum-pro', 'acme', 'elite'],
      ['qwen3-8b', 'qwen', null],
      ['big-model', 'acme', 'elite'],
    ]);

    const liveKey = await createLiveKey(server.dataDir);
    const ask = (key: string, model: string) =>
      fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, ...structured }),
      });

    // A pass-through model: the extras reach the runtime and are not called ignored.
    const passed = await ask(liveKey, 'qwen3-8b');
    expect(passed.status).toBe(200);
    expect(passed.headers.get('x-quantum-ignored-params')).toBeNull();
    expect(((await passed.json()) as { model: string; choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(answer);
    expect(upstream.requests[0]!.body).toMatchObject({
      model: 'Qwen/Qwen3-8B',
      response_format: structured.response_format,
      logprobs: true,
      top_logprobs: 2,
      presence_penalty: 0.5,
      reasoning_effort: 'low',
      top_k: 40,
      chat_template_kwargs: { enable_thinking: false },
    });

    // Without pass-through: the known controls are forwarded, the extras named and left out.
    const kept = await ask(liveKey, 'quantum-flash');
    expect(kept.status).toBe(200);
    expect(kept.headers.get('x-quantum-ignored-params')).toBe('top_k, chat_template_kwargs');
    expect(upstream.requests[1]!.body).toMatchObject({ model: 'llama3.2', response_format: structured.response_format, logprobs: true });
    expect(upstream.requests[1]!.body).not.toHaveProperty('top_k');

    // Plan checks apply to added models.
    const created = await runBuiltCli(['keys', 'create', '--org', 'free-org', '--plan', 'free', '--kind', 'live', '--data-dir', server.dataDir]);
    expect(created.code).toBe(0);
    const freeKey = lastLine(created.stdout);
    const refused = await ask(freeKey, 'big-model');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('plan_required');
    expect((await ask(liveKey, 'big-model')).status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
  }, 60_000);

  it('should serve a model from several deployments, around one that is down', async () => {
    const [up, other] = await Promise.all([startFakeUpstream('from the first replica'), startFakeUpstream('from the second replica')]);
    onTestFinished(() => up.close());
    await other.close();
    const server = await startServerProcess(
      {
        models: {
          'quantum-flash': {
            engine: 'upstream',
            deployments: [
              { baseUrl: other.baseUrl, model: 'replica-b', weight: 2 },
              { baseUrl: up.baseUrl, model: 'replica-a', apiKeyEnv: 'REPLICA_A_KEY', maxConcurrency: 8 },
            ],
          },
        },
      },
      { REPLICA_A_KEY: 'sk-replica-a' },
    );
    onTestFinished(() => server.dispose());
    const liveKey = await createLiveKey(server.dataDir);
    for (let index = 0; index < 5; index++) {
      const response = await fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('from the first replica');
    }
    expect(up.requests).toHaveLength(5);
    expect(up.requests.every((request) => request.body.model === 'replica-a' && request.authorization === 'Bearer sk-replica-a')).toBe(true);
  }, 60_000);

  it('should refuse to start when a deployment\'s apiKeyEnv is not set, naming it', async () => {
    await expect(
      startServerProcess({
        models: { 'quantum-pro': { engine: 'upstream', deployments: [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'QC_UNSET_REPLICA_KEY' }] } },
      }),
    ).rejects.toThrow(/models\["quantum-pro"\]\.deployments\[1\]\.apiKeyEnv names QC_UNSET_REPLICA_KEY/);
  }, 45_000);
});
