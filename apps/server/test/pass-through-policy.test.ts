import { describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeUpstream } from './fake-upstream.js';
import { startServerProcess } from './server-process.js';

/** Vendor sampling extras an operator wants to offer. */
const samplingExtras = { top_k: 40, min_p: 0.05, chat_template_kwargs: { enable_thinking: false } };
/** Fields that change what the operator pays or what the upstream keeps, and one more extra. */
const costlyExtras = {
  service_tier: 'priority',
  store: true,
  best_of: 20,
  web_search_options: { search_context_size: 'high' },
  ignore_eos: true,
  min_tokens: 4000,
  functions: [{ name: 'f', parameters: { type: 'object' } }],
  repetition_penalty: 1.1,
};

describe('quantum-chat serve: pass-through is an allow-list, and never lets a client change what the operator pays', () => {
  it('should forward only the listed extras, keep the deny-list out even under "all", and name what it left out', async () => {
    const upstream = await startFakeUpstream('ok');
    onTestFinished(() => upstream.close());
    const server = await startServerProcess({
      models: {
        'open-model': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'open', passThrough: 'all' },
        'listed-model': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'listed', passThrough: ['top_k', 'min_p', 'chat_template_kwargs'] },
        'closed-model': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'closed' },
      },
    });
    onTestFinished(() => server.dispose());
    const liveKey = await createLiveKey(server.dataDir);
    const ask = async (model: string) => {
      const response = await fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 16, ...samplingExtras, ...costlyExtras }),
      });
      expect(response.status).toBe(200);
      return { ignored: response.headers.get('x-quantum-ignored-params'), sent: upstream.requests.at(-1)!.body };
    };
    const denied = ['service_tier', 'store', 'best_of', 'web_search_options', 'ignore_eos', 'min_tokens', 'functions'];

    const open = await ask('open-model');
    expect(open.sent).toMatchObject({ model: 'open', max_tokens: 16, ...samplingExtras, repetition_penalty: 1.1 });
    for (const field of denied) expect(open.sent).not.toHaveProperty(field);
    expect(open.ignored).toBe(denied.join(', '));

    const listed = await ask('listed-model');
    expect(listed.sent).toMatchObject({ model: 'listed', ...samplingExtras });
    for (const field of [...denied, 'repetition_penalty']) expect(listed.sent).not.toHaveProperty(field);
    expect(listed.ignored).toBe([...denied, 'repetition_penalty'].join(', '));

    const closed = await ask('closed-model');
    for (const field of [...Object.keys(samplingExtras), ...Object.keys(costlyExtras)]) expect(closed.sent).not.toHaveProperty(field);
    expect(closed.ignored).toBe([...Object.keys(samplingExtras), ...Object.keys(costlyExtras)].join(', '));
  }, 60_000);
});
