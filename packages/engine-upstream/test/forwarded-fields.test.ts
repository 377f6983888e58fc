import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UpstreamEngineOptions } from '../src/index.js';
import { sseHeaders, startUpstreamServer, type UpstreamScenario, type UpstreamServer } from './helpers/start-upstream-server.js';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [{ role: 'user', content: 'Where? Answer in JSON.' }],
  tools: [],
  toolChoice: 'none',
  parallelToolCalls: true,
  temperature: 0.2,
  maxTokens: 64,
  responseFormat: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
  logprobs: { topLogprobs: 3 },
  presencePenalty: 0.5,
  frequencyPenalty: -0.25,
  logitBias: { '50256': -100 },
  reasoningEffort: 'low',
  reasoning: false,
};

const answer: UpstreamScenario = (_request, response) => {
  response.writeHead(200, sseHeaders);
  response.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '{"city":"Oslo"}' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
};

const servers: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sentBody(engineRequest: ChatEngineRequest, options: Partial<UpstreamEngineOptions> = {}) {
  const server = await startUpstreamServer(answer);
  servers.push(server);
  const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'llama3.2', ...options });
  const events: ChatEngineEvent[] = [];
  for await (const event of engine.generate(engineRequest, { signal: new AbortController().signal, requestId: 'req_1' })) events.push(event);
  return { body: server.requests[0]!.body, events, engine };
}

describe('the upstream request body', () => {
  it('should forward every output control the request carries, in the OpenAI names', async () => {
    const { body } = await sentBody(request);
    expect(body).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
      logprobs: true,
      top_logprobs: 3,
      presence_penalty: 0.5,
      frequency_penalty: -0.25,
      logit_bias: { '50256': -100 },
      reasoning_effort: 'low',
    });
  });

  it('should forward a json_object format and logprobs without alternatives', async () => {
    const { body } = await sentBody({ ...request, responseFormat: { type: 'json_object' }, logprobs: { topLogprobs: 0 } });
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.logprobs).toBe(true);
    expect(body).not.toHaveProperty('top_logprobs');
  });

  it('should send none of them when the request has none', async () => {
    const { model, messages, tools, toolChoice, parallelToolCalls, temperature, maxTokens, reasoning } = request;
    const { body } = await sentBody({ model, messages, tools, toolChoice, parallelToolCalls, temperature, maxTokens, reasoning });
    for (const field of ['response_format', 'logprobs', 'top_logprobs', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'reasoning_effort']) {
      expect(body).not.toHaveProperty(field);
    }
  });

  it('should say it passes everything through only when configured to', async () => {
    expect(createUpstreamEngine({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }).passThrough).toBe('none');
    expect(createUpstreamEngine({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', passThrough: 'all' }).passThrough).toBe('all');
  });

  it('should forward vendor extras given to it, never over the fields it sets itself', async () => {
    const extraFields = { top_k: 40, chat_template_kwargs: { enable_thinking: false }, model: 'other', stream: false };
    const { body } = await sentBody({ ...request, extraFields }, { passThrough: 'all' });
    expect(body).toMatchObject({ top_k: 40, chat_template_kwargs: { enable_thinking: false }, model: 'llama3.2', stream: true });
  });

  it('should forward only the extras it lists, and under "all" none of the fields that change what the operator pays', async () => {
    const extraFields = { top_k: 40, min_p: 0.05, repetition_penalty: 1.1, service_tier: 'priority', store: true, best_of: 20, ignore_eos: true, min_tokens: 4000, functions: [] };
    const listed = await sentBody({ ...request, extraFields }, { passThrough: ['top_k', 'min_p', 'store'] });
    expect(listed.body).toMatchObject({ top_k: 40, min_p: 0.05, store: true });
    for (const field of ['repetition_penalty', 'service_tier', 'best_of', 'ignore_eos', 'min_tokens', 'functions']) expect(listed.body).not.toHaveProperty(field);
    const all = await sentBody({ ...request, extraFields }, { passThrough: 'all' });
    expect(all.body).toMatchObject({ top_k: 40, min_p: 0.05, repetition_penalty: 1.1 });
    for (const field of ['service_tier', 'store', 'best_of', 'ignore_eos', 'min_tokens', 'functions']) expect(all.body).not.toHaveProperty(field);
  });

  it('should not forward extras when it is not configured to pass them through', async () => {
    const { body } = await sentBody({ ...request, extraFields: { top_k: 40 } });
    expect(body).not.toHaveProperty('top_k');
  });
});

describe('logprobs from the upstream', () => {
  const entry = (token: string, logprob: number) => ({ token, logprob, bytes: [...Buffer.from(token)], top_logprobs: [] });
  const scored: UpstreamScenario = (_request, response) => {
    response.writeHead(200, sseHeaders);
    const chunk = (content: string, logprob: number) => ({ choices: [{ index: 0, delta: { content }, logprobs: { content: [entry(content, logprob)], refusal: null }, finish_reason: null }] });
    response.write(`data: ${JSON.stringify(chunk('Hel', -0.1))}\n\n`);
    response.write(`data: ${JSON.stringify(chunk('lo', -0.2))}\n\n`);
    response.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
  };

  it('should give each content event the logprobs its chunk carried', async () => {
    const server = await startUpstreamServer(scored);
    servers.push(server);
    const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm' });
    const events: ChatEngineEvent[] = [];
    for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })) events.push(event);
    expect(events.filter((event) => event.type === 'content')).toEqual([
      { type: 'content', text: 'Hel', logprobs: [entry('Hel', -0.1)] },
      { type: 'content', text: 'lo', logprobs: [entry('lo', -0.2)] },
    ]);
  });

  it('should keep logprobs with the text when a think block is being split out', async () => {
    const server = await startUpstreamServer((_request, response) => {
      response.writeHead(200, sseHeaders);
      const chunk = (content: string, logprob: number) => ({ choices: [{ index: 0, delta: { content }, logprobs: { content: [entry(content, logprob)] } }] });
      response.write(`data: ${JSON.stringify(chunk('<thi', -0.1))}\n\n`);
      response.write(`data: ${JSON.stringify(chunk('nk>x</think>Yes', -0.2))}\n\n`);
      response.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    });
    servers.push(server);
    const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'm', reasoning: 'keep' });
    const events: ChatEngineEvent[] = [];
    for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'r' })) events.push(event);
    const content = events.filter((event) => event.type === 'content');
    expect(content.map((event) => event.text).join('')).toBe('Yes');
    expect(content.flatMap((event) => event.logprobs ?? []).map((scoredEntry) => scoredEntry.logprob)).toEqual([-0.1, -0.2]);
  });
});
