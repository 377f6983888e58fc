import { describe, expect, it } from 'vitest';
import { createChatClient } from '../create-chat-client.js';
import { runTools } from './run-tools.js';
import { defineTool } from './runner-tool.js';

type Body = { messages: Array<Record<string, unknown>>; tool_choice?: unknown; tools?: unknown[] };

/** A client whose server answers with the given assistant messages in turn, recording the requests. */
function scriptedClient(replies: Array<Record<string, unknown>>) {
  const requests: Body[] = [];
  const client = createChatClient({
    baseUrl: 'http://scripted.invalid/v1',
    apiKey: 'k',
    fetch: async (_url, init) => {
      requests.push(JSON.parse(String(init.body)) as Body);
      const message = replies[requests.length - 1];
      const finish = message?.tool_calls ? 'tool_calls' : 'stop';
      const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };
      return new Response(JSON.stringify(completion), { headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, requests };
}

const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
const weather = defineTool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  run: async (args) => ({ city: args.city, celsius: 21 }),
});

describe('runTools', () => {
  it('should run parallel calls, feed every result back and stop at the answer', async () => {
    const { client, requests } = scriptedClient([
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'get_weather', '{"city":"Paris"}'), call('call_2', 'get_weather', '{"city":"Oslo"}')] },
      { role: 'assistant', content: 'Warm in both.' },
    ]);
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowWeather = { ...weather, run: async (args: { city?: unknown }) => { started.push(String(args.city)); if (started.length === 2) release(); await gate; return `${String(args.city)}: 21°C`; } };
    const result = await runTools({ client, model: 'm', messages: [{ role: 'user', content: 'Weather?' }], tools: [slowWeather], toolChoice: 'required' });
    expect(started).toEqual(['Paris', 'Oslo']);
    expect(result.endedBy).toBe('answer');
    expect(result.finalMessage.content).toBe('Warm in both.');
    expect(result.steps).toHaveLength(2);
    expect(result.usage).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
    expect(result.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'get_weather', '{"city":"Paris"}'), call('call_2', 'get_weather', '{"city":"Oslo"}')] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Paris: 21°C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Oslo: 21°C' },
      { role: 'assistant', content: 'Warm in both.' },
    ]);
    expect(requests[0]?.tool_choice).toBe('required');
    expect(requests[1]?.tool_choice).toBeUndefined();
    expect(requests[0]?.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weather.parameters } }]);
  });

  it('should send unparseable, invalid and unknown calls and thrown errors back as error results', async () => {
    const failing = defineTool({ name: 'explode', parameters: { type: 'object' }, run: () => { throw new Error('kaboom'); } });
    const { client } = scriptedClient([
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('c1', 'get_weather', '{"city":'), call('c2', 'get_weather', '{"town":"Oslo"}'), call('c3', 'nope', '{}'), call('c4', 'explode', '{}')],
      },
      { role: 'assistant', content: 'Sorry.' },
    ]);
    const result = await runTools({ client, model: 'm', messages: [{ role: 'user', content: 'Go' }], tools: [weather, failing] });
    const errors = result.steps[0]!.toolResults.map((toolResult) => [toolResult.isError, JSON.parse(toolResult.content).error]);
    expect(errors).toEqual([
      [true, expect.stringContaining('not valid JSON')],
      [true, 'The arguments do not match the tool\'s schema: (root): Instance does not have required property "city"; town: Unknown property: the schema allows no other properties.'],
      [true, "Unknown tool 'nope'. Available tools: get_weather, explode."],
      [true, 'kaboom'],
    ]);
    expect(result.finalMessage.content).toBe('Sorry.');
  });

  it('should stop at the step limit with the last tool results in the conversation', async () => {
    const asks = { role: 'assistant', content: null, tool_calls: [call('c', 'get_weather', '{"city":"Rome"}')] };
    const { client, requests } = scriptedClient([asks, asks, asks]);
    const result = await runTools({ client, model: 'm', messages: [{ role: 'user', content: 'Loop' }], tools: [weather], maxSteps: 2 });
    expect(requests).toHaveLength(2);
    expect(result.endedBy).toBe('step-limit');
    expect(result.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c', content: '{"city":"Rome","celsius":21}' });
  });

  it('should refuse tool names the API would refuse before sending anything', async () => {
    const { client, requests } = scriptedClient([]);
    const bad = { ...weather, name: 'get weather' };
    await expect(runTools({ client, model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [bad] })).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });
});
