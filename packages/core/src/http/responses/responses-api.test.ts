import { describe, expect, it } from 'vitest';
import type { AccessControl, AdmissionOutcome } from '../../auth/access-control.js';
import { generateApiKey } from '../../auth/parse-api-key.js';
import { staticApiKeys } from '../../auth/static-api-keys.js';
import { signRequestBody } from '../../auth/verify-signature.js';
import type { ChatEngine, ChatEngineEvent, ChatEngineRequest } from '../../engine/chat-engine.js';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import { createSequentialResponseIdGenerator } from '../../run/responses/response-ids.js';
import { responseItemListSchema } from '../../schemas/responses/item-resource.js';
import { createChatHandler, type ChatHandlerOptions } from '../create-chat-handler.js';

const key = generateApiKey('live');
const sameOrgKey = generateApiKey('live');
const otherOrgKey = generateApiKey('live');
const proKey = generateApiKey('live');
const secret = 'whsec_test_secret';
const keys = staticApiKeys([
  { key, organisationId: 'acme' },
  { key: sameOrgKey, organisationId: 'acme' },
  { key: otherOrgKey, organisationId: 'globex' },
  { key: proKey, organisationId: 'initech', plan: 'free' },
]);

const usage = { promptTokens: 5, completionTokens: 4, reasoningTokens: 1 };
const answer: ChatEngineEvent[] = [
  { type: 'reasoning', text: 'think' },
  { type: 'content', text: 'Hello' },
  { type: 'content', text: ' world' },
  { type: 'finish', reason: 'stop', usage },
];
const toolAnswer: ChatEngineEvent[] = [
  { type: 'tool-call', index: 0, name: 'lookup', argumentsDelta: '{"q":' },
  { type: 'tool-call', index: 0, argumentsDelta: '"x"}' },
  { type: 'finish', reason: 'stop', usage },
];

/** A scripted engine that notes each request it is given. */
function recordingEngine(events: ChatEngineEvent[] = answer) {
  const requests: ChatEngineRequest[] = [];
  const engine: ChatEngine = {
    async *generate(request) {
      requests.push(request);
      for (const event of events) yield event;
    },
  };
  return { engine, requests };
}

/** An engine whose events come out one per `release()`. */
function gatedEngine(events: ChatEngineEvent[] = answer) {
  const waiting: Array<() => void> = [];
  let credit = 0;
  const engine: ChatEngine = {
    async *generate(_request, context) {
      for (const event of events) {
        while (credit === 0) await new Promise<void>((resolve) => waiting.push(resolve));
        credit--;
        if (context.signal.aborted) throw context.signal.reason;
        yield event;
      }
    },
  };
  return {
    engine,
    release(count = 1) {
      credit += count;
      for (const wake of waiting.splice(0)) wake();
    },
  };
}

/** Records each settle outcome, admitting everything (or refusing with `refuse`). */
function countingAccess(refuse?: QuantumChatError) {
  const outcomes: AdmissionOutcome[] = [];
  const demands: { maxTokens: number; promptTokens: number; api: string | undefined }[] = [];
  const accessControl: AccessControl = {
    authenticate: (parsed) => keys.authenticate(parsed),
    async admit(_principal, demand) {
      demands.push({ maxTokens: demand.maxTokens, promptTokens: demand.promptTokens, api: demand.api });
      if (refuse !== undefined) throw refuse;
      return { headers: { 'x-ratelimit-remaining-requests': '9' }, settle: (outcome) => void outcomes.push(outcome) };
    },
  };
  return { accessControl, outcomes, demands };
}

function makeHandler(options: Partial<ChatHandlerOptions> = {}) {
  return createChatHandler({
    accessControl: keys,
    engine: recordingEngine().engine,
    now: () => 1_700_000_000_000,
    responses: { generateId: createSequentialResponseIdGenerator() },
    ...options,
  });
}

function post(body: unknown, headers: Record<string, string> = {}, path = '/v1/responses') {
  return new Request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function get(path: string, withKey = key, method = 'GET') {
  return new Request(`http://127.0.0.1/v1${path}`, { method, headers: { authorization: `Bearer ${withKey}` } });
}

/** The events of an SSE body as `{event, data}` (keep-alive comments skipped). */
function parseEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '';
      const data = JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) as Record<string, unknown>;
      return { event, data };
    });
}

const turns = async (count = 10) => {
  for (let index = 0; index < count; index++) await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('POST /v1/responses (JSON)', () => {
  it('answers a Response, reasoning before the message, usage in the Responses names, ignored fields named', async () => {
    const { engine, requests } = recordingEngine();
    const access = countingAccess();
    const records: { api: string; model: string; status: number }[] = [];
    const handler = makeHandler({ engine, accessControl: access.accessControl, onRequestSettled: (record) => records.push(record) });
    const response = await handler.fetch(post({ model: 'quantum-reasoner', input: 'Hi', instructions: 'Be brief.', max_output_tokens: 64, foo: 1 }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-quantum-ignored-params')).toBe('foo');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('9');
    const body = await response.json();
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'quantum-reasoner',
      instructions: 'Be brief.',
      max_output_tokens: 64,
      store: true,
      usage: { input_tokens: 5, output_tokens: 4, output_tokens_details: { reasoning_tokens: 1 }, total_tokens: 9 },
    });
    expect(body.id).toMatch(/^resp_/);
    expect(body.output.map((item: { type: string }) => item.type)).toEqual(['reasoning', 'message']);
    expect(body.output[0].summary).toEqual([{ type: 'summary_text', text: 'think' }]);
    expect(body.output[1].content[0].text).toBe('Hello world');
    expect(requests[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(requests[0]!.maxTokens).toBe(64);
    // Quotas reserve the input and max_output_tokens; the demand and the settle name the API.
    expect(access.demands).toEqual([{ maxTokens: 64, promptTokens: expect.any(Number), api: 'responses' }]);
    expect(access.outcomes).toMatchObject([{ api: 'responses', status: 200, promptTokens: 5, completionTokens: 4, interrupted: false }]);
    expect(records).toMatchObject([{ api: 'responses', model: 'quantum-reasoner', status: 200 }]);
  });

  it('settles a chat completion with api chat.completions', async () => {
    const access = countingAccess();
    const handler = makeHandler({ accessControl: access.accessControl });
    const response = await handler.fetch(post({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }, {}, '/v1/chat/completions'));
    expect(response.status).toBe(200);
    expect(access.outcomes).toMatchObject([{ api: 'chat.completions', status: 200 }]);
    expect(access.demands).toMatchObject([{ api: 'chat.completions' }]);
  });

  it('answers a function call, and a follow-up with previous_response_id carries the conversation', async () => {
    const tools = recordingEngine(toolAnswer);
    const handler = makeHandler({ engine: tools.engine });
    const first = await (await handler.fetch(post({ model: 'quantum-flash', input: 'Look up x', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }] }))).json();
    expect(first.output).toMatchObject([{ type: 'function_call', name: 'lookup', arguments: '{"q":"x"}', status: 'completed' }]);
    const callId = first.output[0].call_id as string;
    const second = await handler.fetch(post({ model: 'quantum-flash', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: callId, output: '42' }] }));
    expect(second.status).toBe(200);
    expect(tools.requests[1]!.messages).toEqual([
      { role: 'user', content: 'Look up x' },
      { role: 'assistant', content: null, toolCalls: [{ id: callId, type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
      { role: 'tool', content: '42', toolCallId: callId },
    ]);
  });

  it('resolves item_reference to stored input and output items', async () => {
    const { engine, requests } = recordingEngine();
    const handler = makeHandler({ engine });
    const first = await (await handler.fetch(post({ model: 'quantum-flash', input: [{ type: 'message', role: 'user', content: 'Hi', id: 'msg_client_1' }] }))).json();
    const messageId = first.output.find((item: { type: string }) => item.type === 'message').id as string;
    const second = await handler.fetch(post({ model: 'quantum-flash', input: [{ type: 'item_reference', id: 'msg_client_1' }, { id: messageId }, { role: 'user', content: 'And?' }] }));
    expect(second.status).toBe(200);
    expect(requests[1]!.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello world' },
      { role: 'user', content: 'And?' },
    ]);
    const missing = await handler.fetch(post({ model: 'quantum-flash', input: [{ type: 'item_reference', id: 'msg_nope' }] }));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: 'response_not_found', param: 'input[0].id' });
  });

  it('refuses bad input with the field path, hosted tools by name', async () => {
    const handler = makeHandler();
    const cases: [unknown, string, string][] = [
      [{ input: 'Hi' }, 'missing_required_parameter', 'model'],
      [{ model: 'quantum-flash', input: [{ type: 'message', role: 'robot', content: 'x' }] }, 'invalid_value', 'input[0].role'],
      [{ model: 'quantum-flash', input: 'Hi', tools: [{ type: 'web_search_preview' }] }, 'unsupported_value', 'tools[0].type'],
      [{ model: 'quantum-flash', input: 'Hi', store: false, background: true }, 'invalid_value', 'background'],
      [{ model: 'quantum-flash', input: [{ type: 'function_call_output', call_id: 'call_x', output: '1' }] }, 'invalid_value', 'input[0].call_id'],
    ];
    for (const [body, code, param] of cases) {
      const response = await handler.fetch(post(body));
      expect(response.status).toBe(400);
      expect((await response.json()).error).toMatchObject({ code, param });
    }
    const badJson = await handler.fetch(post('{"model":'));
    expect((await badJson.json()).error.code).toBe('invalid_json');
    const unknownModel = await handler.fetch(post({ model: 'gpt-9', input: 'Hi' }));
    expect(unknownModel.status).toBe(404);
    expect((await unknownModel.json()).error.code).toBe('model_not_found');
  });

  it('applies plans, quotas, keys and signatures as chat does', async () => {
    const handler = makeHandler({ signingSecrets: [secret] });
    const plan = await handler.fetch(post({ model: 'quantum-pro', input: 'Hi' }, { authorization: `Bearer ${proKey}` }));
    expect(plan.status).toBe(403);
    expect((await plan.json()).error).toMatchObject({ code: 'plan_required', param: 'model' });
    const noKey = await handler.fetch(post({ model: 'quantum-flash', input: 'Hi' }, { authorization: '' }));
    expect(noKey.status).toBe(401);

    const signing = makeHandler({ signingSecrets: [secret], requireSignatures: true });
    const unsigned = await signing.fetch(post({ model: 'quantum-flash', input: 'Hi' }));
    expect((await unsigned.json()).error.code).toBe('invalid_signature');
    const body = JSON.stringify({ model: 'quantum-flash', input: 'Hi' });
    const signature = await signRequestBody(secret, new TextEncoder().encode(body), 1_700_000_000);
    const wrong = await signing.fetch(post(body.replace('Hi', 'Ho'), { 'x-service-signature': signature }));
    expect((await wrong.json()).error.code).toBe('invalid_signature');
    const signed = await signing.fetch(post(body, { 'x-service-signature': signature }));
    expect(signed.status).toBe(200);

    const quota = countingAccess(new QuantumChatError('insufficient_quota', 'You exceeded your token quota.'));
    const refused = await makeHandler({ accessControl: quota.accessControl }).fetch(post({ model: 'quantum-flash', input: 'Hi', max_output_tokens: 500 }));
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('insufficient_quota');
    expect(quota.demands[0]!.maxTokens).toBe(500);
  });
});

describe('POST /v1/responses (stream)', () => {
  it('streams named events with sequence numbers, ending in response.completed, no [DONE]', async () => {
    const handler = makeHandler({ engine: recordingEngine().engine });
    const response = await handler.fetch(post({ model: 'quantum-reasoner', input: 'Hi', stream: true, store: false }));
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await response.text();
    expect(text).not.toContain('[DONE]');
    const events = parseEvents(text);
    expect(events[0]!.event).toBe('response.created');
    expect(events[1]!.event).toBe('response.in_progress');
    expect(events.at(-1)!.event).toBe('response.completed');
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_event, index) => index));
    for (const event of events) expect(event.data.type).toBe(event.event);
    const final = events.at(-1)!.data.response as { output: { type: string }[]; status: string };
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
  });

  it('ends a stream that fails after its first byte with error then response.failed', async () => {
    const failing: ChatEngine = {
      async *generate() {
        yield { type: 'content', text: 'Hel' };
        throw new QuantumChatError('upstream_error', 'The upstream went away.');
      },
    };
    const access = countingAccess();
    const handler = makeHandler({ engine: failing, accessControl: access.accessControl });
    const response = await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', stream: true }));
    expect(response.status).toBe(200);
    const events = parseEvents(await response.text());
    expect(events.slice(-2).map((event) => event.event)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)!.data).toMatchObject({ type: 'error', code: 'upstream_error' });
    expect(access.outcomes).toMatchObject([{ api: 'responses', interrupted: true }]);
    // The stored response is the failed one.
    const id = (events[0]!.data.response as { id: string }).id;
    const stored = await (await handler.fetch(get(`/responses/${id}`))).json();
    expect(stored).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
  });

  it('fails before the first byte as a real HTTP error', async () => {
    const failing: ChatEngine = {
      // eslint-disable-next-line require-yield
      async *generate() {
        throw new QuantumChatError('engine_unavailable', 'No engine.');
      },
    };
    const response = await makeHandler({ engine: failing }).fetch(post({ model: 'quantum-flash', input: 'Hi', stream: true, store: false }));
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe('engine_unavailable');
    // A stored one, saved in progress as it started, is not kept: its id was never handed out.
    const handler = makeHandler({ engine: failing });
    const stored = await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', stream: true }));
    expect(stored.status).toBe(503);
    expect((await handler.fetch(get(`/responses/resp_${'1'.padStart(24, '0')}`))).status).toBe(404);
  });

  it('stops the engine and settles when a client leaves a stream', async () => {
    let aborted: AbortSignal | undefined;
    const hanging: ChatEngine = {
      async *generate(_request, context) {
        aborted = context.signal;
        yield { type: 'content', text: 'Hel' };
        await new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
      },
    };
    const access = countingAccess();
    const controller = new AbortController();
    const handler = makeHandler({ engine: hanging, accessControl: access.accessControl });
    const response = await handler.fetch(new Request(post({ model: 'quantum-flash', input: 'Hi', stream: true, store: false }), { signal: controller.signal }));
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('response.created');
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await turns();
    expect(aborted?.aborted).toBe(true);
    expect(access.outcomes).toMatchObject([{ api: 'responses', interrupted: true }]);
  });

  it('stops a stored stream\'s engine when its client leaves, saving it cancelled', async () => {
    let aborted: AbortSignal | undefined;
    const hanging: ChatEngine = {
      async *generate(_request, context) {
        aborted = context.signal;
        yield { type: 'content', text: 'Hel' };
        await new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
      },
    };
    const access = countingAccess();
    const controller = new AbortController();
    const handler = makeHandler({ engine: hanging, accessControl: access.accessControl });
    const response = await handler.fetch(new Request(post({ model: 'quantum-flash', input: 'Hi', stream: true }), { signal: controller.signal }));
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = (parseEvents(first)[0]!.data.response as { id: string }).id;
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await turns();
    expect(aborted?.aborted).toBe(true);
    expect(access.outcomes).toMatchObject([{ api: 'responses', interrupted: true }]);
    const stored = await (await handler.fetch(get(`/responses/${id}`))).json();
    expect(stored.status).toBe('cancelled');
    expect(stored.output[0].content[0].text).toBe('Hel');
  });

  it('keeps a stored stream in_progress, with its input items, while it runs, and completed once it ends', async () => {
    const gated = gatedEngine();
    const handler = makeHandler({ engine: gated.engine });
    gated.release();
    const response = await handler.fetch(post({ model: 'quantum-reasoner', input: 'Hi', stream: true }));
    const reader = response.body!.getReader();
    const id = (parseEvents(new TextDecoder().decode((await reader.read()).value))[0]!.data.response as { id: string }).id;
    const running = await handler.fetch(get(`/responses/${id}`));
    expect(running.status).toBe(200);
    expect(await running.json()).toMatchObject({ id, object: 'response', status: 'in_progress', output: [], usage: null });
    const items = await (await handler.fetch(get(`/responses/${id}/input_items`))).json();
    expect(items.data).toMatchObject([{ type: 'message', role: 'user' }]);
    gated.release(answer.length);
    while (!(await reader.read()).done);
    const done = await (await handler.fetch(get(`/responses/${id}`))).json();
    expect(done).toMatchObject({ id, status: 'completed', usage: { total_tokens: 9 } });
    expect(done.output.at(-1).content[0].text).toBe('Hello world');
  });

  it('resumes a stored stream with starting_after, events after that sequence number', async () => {
    const handler = makeHandler({ engine: recordingEngine().engine });
    const events = parseEvents(await (await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', stream: true }))).text());
    const id = (events[0]!.data.response as { id: string }).id;
    const resumed = await handler.fetch(get(`/responses/${id}?stream=true&starting_after=3`));
    expect(resumed.status).toBe(200);
    const replayed = parseEvents(await resumed.text());
    expect(replayed.map((event) => event.data.sequence_number)).toEqual(events.slice(4).map((event) => event.data.sequence_number));
    expect(replayed.at(-1)!.event).toBe('response.completed');
    const other = await handler.fetch(get(`/responses/${id}?stream=true`, otherOrgKey));
    expect(other.status).toBe(404);
  });
});

describe('stored responses', () => {
  it('retrieves, lists input items, deletes; another organisation, store:false and deleted ids are 404', async () => {
    const handler = makeHandler();
    const created = await (
      await handler.fetch(post({ model: 'quantum-flash', input: [{ role: 'user', content: 'One' }, { role: 'user', content: 'Two', id: 'msg_mine' }, { role: 'user', content: 'Three' }] }))
    ).json();
    const retrieved = await handler.fetch(get(`/responses/${created.id}`, sameOrgKey));
    expect(await retrieved.json()).toEqual(created);

    const page = await (await handler.fetch(get(`/responses/${created.id}/input_items?limit=2`))).json();
    expect(page).toMatchObject({ object: 'list', has_more: true });
    expect(page.data.map((item: { content: { text: string }[] }) => item.content[0]!.text)).toEqual(['Three', 'Two']);
    expect(page.data[1].id).toBe('msg_mine');
    expect(page.data[0].id).toMatch(/^msg_/);
    expect(page.first_id).toBe(page.data[0].id);
    expect(page.last_id).toBe('msg_mine');
    const next = await (await handler.fetch(get(`/responses/${created.id}/input_items?after=msg_mine&order=desc`))).json();
    expect(next.data.map((item: { content: { text: string }[] }) => item.content[0]!.text)).toEqual(['One']);
    expect(next.has_more).toBe(false);
    const ascending = await (await handler.fetch(get(`/responses/${created.id}/input_items?order=asc`))).json();
    expect(ascending.data.map((item: { content: { text: string }[] }) => item.content[0]!.text)).toEqual(['One', 'Two', 'Three']);
    const badLimit = await handler.fetch(get(`/responses/${created.id}/input_items?limit=101`));
    expect((await badLimit.json()).error).toMatchObject({ code: 'invalid_value', param: 'limit' });

    for (const path of [`/responses/${created.id}`, `/responses/${created.id}/input_items`]) {
      const other = await handler.fetch(get(path, otherOrgKey));
      expect(other.status).toBe(404);
      expect((await other.json()).error.code).toBe('response_not_found');
    }
    const followUp = await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', previous_response_id: created.id }, { authorization: `Bearer ${otherOrgKey}` }));
    expect((await followUp.json()).error).toMatchObject({ code: 'response_not_found', param: 'previous_response_id' });

    const deleted = await handler.fetch(get(`/responses/${created.id}`, key, 'DELETE'));
    expect(await deleted.json()).toEqual({ id: created.id, object: 'response.deleted', deleted: true });
    expect((await handler.fetch(get(`/responses/${created.id}`))).status).toBe(404);
    expect((await handler.fetch(get(`/responses/${created.id}`, key, 'DELETE'))).status).toBe(404);

    const unstored = await (await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', store: false }))).json();
    expect(unstored.store).toBe(false);
    expect((await handler.fetch(get(`/responses/${unstored.id}`))).status).toBe(404);
  });

  it('lists input items as OpenAI lists them: content as parts, a status on every item', async () => {
    const { engine, requests } = recordingEngine();
    const handler = makeHandler({ engine });
    const weather = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
    const created = await (
      await handler.fetch(
        post({
          model: 'quantum-flash',
          tools: [weather],
          input: [
            { type: 'message', role: 'user', content: 'What is the weather in Paris right now?' },
            { type: 'function_call', call_id: 'call_paris_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'function_call_output', call_id: 'call_paris_1', output: '{"temperature":18}' },
          ],
        }),
      )
    ).json();
    const listed = await handler.fetch(get(`/responses/${created.id}/input_items?order=asc`));
    expect(listed.status).toBe(200);
    const page = await listed.json();
    expect(responseItemListSchema.parse(page)).toEqual(page);
    expect(page).toEqual({
      object: 'list',
      data: [
        { type: 'message', id: expect.stringMatching(/^msg_/), status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'What is the weather in Paris right now?' }] },
        { type: 'function_call', id: expect.stringMatching(/^fc_/), status: 'completed', call_id: 'call_paris_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', id: expect.stringMatching(/^fco_/), status: 'completed', call_id: 'call_paris_1', output: '{"temperature":18}' },
      ],
      first_id: page.data[0].id,
      last_id: page.data[2].id,
      has_more: false,
    });

    // Assistant text is output_text; parts, reasoning and a status sent back are listed as sent.
    const second = await (
      await handler.fetch(
        post({
          model: 'quantum-flash',
          instructions: 'Be brief.',
          input: [
            { role: 'developer', content: [{ type: 'input_text', text: 'Answer in French.' }], status: null },
            { role: 'user', content: [{ type: 'input_text', text: 'Hi ' }, { type: 'output_text', text: 'there' }] },
            { type: 'reasoning', id: 'rs_mine', summary: [{ type: 'summary_text', text: 'greet' }] },
            { role: 'assistant', content: 'Bonjour', status: 'incomplete' },
            { role: 'assistant', content: [{ type: 'output_text', text: 'Salut', annotations: null }], id: 'msg_sent' },
            { role: 'user', content: 'Again' },
          ],
        }),
      )
    ).json();
    const items = await (await handler.fetch(get(`/responses/${second.id}/input_items?order=asc`))).json();
    expect(responseItemListSchema.parse(items)).toEqual(items);
    expect(items.data.map(({ id: _id, ...item }: { id: string }) => item)).toEqual([
      { type: 'message', status: 'completed', role: 'developer', content: [{ type: 'input_text', text: 'Answer in French.' }] },
      { type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'Hi ' }, { type: 'input_text', text: 'there' }] },
      { type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'greet' }] },
      { type: 'message', status: 'incomplete', role: 'assistant', content: [{ type: 'output_text', text: 'Bonjour', annotations: [], logprobs: [] }] },
      { type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Salut', annotations: [], logprobs: [] }] },
      { type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'Again' }] },
    ]);
    expect(items.data[2].id).toBe('rs_mine');
    expect(items.data[4].id).toBe('msg_sent');

    // The listed form is what a later request reads: references and previous_response_id give the engine the same turns.
    const byReference = await handler.fetch(post({ model: 'quantum-flash', input: items.data.map((item: { id: string }) => ({ type: 'item_reference', id: item.id })) }));
    expect(byReference.status).toBe(200);
    expect(requests[2]!.messages).toEqual(requests[1]!.messages.slice(1));
    const followUp = await handler.fetch(post({ model: 'quantum-flash', previous_response_id: created.id, input: 'Thanks' }));
    expect(followUp.status).toBe(200);
    expect(requests[3]!.messages).toEqual([...requests[0]!.messages, { role: 'assistant', content: 'Hello world' }, { role: 'user', content: 'Thanks' }]);
  });

  it('follows previous_response_id through at most 100 responses', async () => {
    const handler = makeHandler();
    let previous: string | undefined;
    for (let index = 0; index <= 100; index++) {
      const body = await (await handler.fetch(post({ model: 'quantum-flash', input: `Turn ${index}`, ...(previous === undefined ? {} : { previous_response_id: previous }) }))).json();
      expect(body.status).toBe('completed');
      previous = body.id as string;
    }
    const tooLong = await handler.fetch(post({ model: 'quantum-flash', input: 'Last', previous_response_id: previous }));
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error).toMatchObject({ code: 'invalid_value', param: 'previous_response_id' });
  });

  it('forgets a response after its retention', async () => {
    let now = 1_700_000_000_000;
    const handler = makeHandler({ now: () => now, responses: { retentionSeconds: 60, generateId: createSequentialResponseIdGenerator() } });
    const created = await (await handler.fetch(post({ model: 'quantum-flash', input: 'Hi' }))).json();
    expect((await handler.fetch(get(`/responses/${created.id}`))).status).toBe(200);
    now += 61_000;
    expect((await handler.fetch(get(`/responses/${created.id}`))).status).toBe(404);
  });
});

describe('background responses', () => {
  it('answers queued at once, runs on, and is retrieved when done', async () => {
    const gated = gatedEngine();
    const handler = makeHandler({ engine: gated.engine });
    const response = await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', background: true }));
    const queued = await response.json();
    expect(queued).toMatchObject({ status: 'queued', background: true, output: [] });
    expect((await (await handler.fetch(get(`/responses/${queued.id}`))).json()).status).toBe('in_progress');
    gated.release(10);
    await turns();
    const done = await (await handler.fetch(get(`/responses/${queued.id}`))).json();
    expect(done.status).toBe('completed');
    expect(done.output.at(-1).content[0].text).toBe('Hello world');
    // A finished one is answered as it is.
    const cancelDone = await handler.fetch(post('', {}, `/v1/responses/${queued.id}/cancel`));
    expect((await cancelDone.json()).status).toBe('completed');
  });

  it('cancels a running background response; cancelling a foreground one is a 400', async () => {
    const gated = gatedEngine();
    const access = countingAccess();
    const handler = makeHandler({ engine: gated.engine, accessControl: access.accessControl });
    const queued = await (await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', background: true }))).json();
    gated.release(2);
    await turns();
    const cancelled = await handler.fetch(post('', {}, `/v1/responses/${queued.id}/cancel`));
    expect(cancelled.status).toBe(200);
    expect((await cancelled.json()).status).toBe('cancelled');
    await turns();
    expect((await (await handler.fetch(get(`/responses/${queued.id}`))).json()).status).toBe('cancelled');
    expect(access.outcomes).toMatchObject([{ api: 'responses', interrupted: true }]);

    const unknown = await handler.fetch(post('', {}, '/v1/responses/resp_unknown/cancel'));
    expect(unknown.status).toBe(404);
    const otherOrg = await handler.fetch(post('', { authorization: `Bearer ${otherOrgKey}` }, `/v1/responses/${queued.id}/cancel`));
    expect(otherOrg.status).toBe(404);
    const own = makeHandler();
    const mine = await (await own.fetch(post({ model: 'quantum-flash', input: 'Hi' }))).json();
    const notBackground = await own.fetch(post('', {}, `/v1/responses/${mine.id}/cancel`));
    expect(notBackground.status).toBe(400);
  });

  it('streams a background response and resumes it from another request', async () => {
    const gated = gatedEngine();
    const handler = makeHandler({ engine: gated.engine, keepAliveIntervalMs: 0 });
    gated.release(1);
    const response = await handler.fetch(post({ model: 'quantum-flash', input: 'Hi', background: true, stream: true }));
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = (parseEvents(first)[0]!.data.response as { id: string }).id;
    await reader.cancel();
    gated.release(10);
    await turns();
    const resumed = parseEvents(await (await handler.fetch(get(`/responses/${id}?stream=true&starting_after=0`))).text());
    expect(resumed[0]!.data.sequence_number).toBe(1);
    expect(resumed.at(-1)!.event).toBe('response.completed');
    expect((await (await handler.fetch(get(`/responses/${id}`))).json()).status).toBe('completed');
  });
});
