import { describe, expect, it } from 'vitest';
import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import type { ConversationItem } from '../../schemas/responses/input-item.js';
import { buildResponse } from '../../run/responses/build-response.js';
import { createSequentialResponseIdGenerator } from '../../run/responses/response-ids.js';
import { createResponseShell } from '../../run/responses/response-shell.js';
import { referencedItemIds, toEngineRequest } from './to-engine-request.js';
import { validateCreateResponse } from './validate-create-response.js';

const usage = { promptTokens: 5, completionTokens: 5, reasoningTokens: 2 };
const weather = { type: 'function', name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true };

/** A first turn as an engine answers it, as the Response the client gets. */
function firstTurn(body: Record<string, unknown>, events: ChatEngineEvent[]) {
  const request = validateCreateResponse(body);
  const shell = createResponseShell(request, { id: 'resp_1', createdAt: 1, model: request.model });
  return buildResponse(shell, events, { generateId: createSequentialResponseIdGenerator(), showReasoning: true, showLogprobs: false, completedAt: 2 });
}

function refusal(run: () => unknown): { code: string; param: string | null } {
  try {
    run();
  } catch (error) {
    if (QuantumChatError.isInstance(error)) return { code: error.code, param: error.param };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('toEngineRequest', () => {
  it('carries the settings over to the engine request', () => {
    const request = validateCreateResponse({
      model: 'quantum-flash',
      instructions: 'Answer in French.',
      input: 'Weather in Paris?',
      tools: [weather],
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_output_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      user: 'u-1',
      reasoning: { effort: 'low' },
      include: ['message.output_text.logprobs'],
      top_logprobs: 2,
    });
    expect(toEngineRequest(request)).toEqual({
      model: 'quantum-flash',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: weather.parameters, strict: true } }],
      toolChoice: 'required',
      parallelToolCalls: false,
      temperature: 0.2,
      maxTokens: 300,
      topP: 0.9,
      user: 'u-1',
      reasoningEffort: 'low',
      logprobs: { topLogprobs: 2 },
    });
  });

  it('defaults max tokens as chat does and maps a named tool choice', () => {
    const engine = toEngineRequest(validateCreateResponse({ model: 'm', input: 'x', tools: [weather], tool_choice: { type: 'function', name: 'get_weather' } }));
    expect(engine.maxTokens).toBe(4096);
    expect(engine.toolChoice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('turns text.format into response_format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const strict = toEngineRequest(validateCreateResponse({ model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'answer', description: 'One answer', schema, strict: true } } }));
    expect(strict.responseFormat).toEqual({ type: 'json_schema', json_schema: { name: 'answer', description: 'One answer', schema, strict: true } });
    expect(toEngineRequest(validateCreateResponse({ model: 'm', input: 'x', text: { format: { type: 'json_object' } } })).responseFormat).toEqual({ type: 'json_object' });
    expect(toEngineRequest(validateCreateResponse({ model: 'm', input: 'x', text: { format: { type: 'text' } } })).responseFormat).toBeUndefined();
  });

  describe('a function-tool round trip', () => {
    const body = { model: 'quantum-reasoner', input: 'Weather in Paris?', tools: [weather] };
    const first = firstTurn(body, [
      { type: 'reasoning', text: 'I need the weather tool.' },
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":"Paris"}' },
      { type: 'finish', reason: 'tool_calls', usage },
    ]);
    const call = first.output.find((item) => item.type === 'function_call')!;
    const expectedMessages = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        reasoning: 'I need the weather tool.',
        toolCalls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', content: '18 C and sunny', toolCallId: call.call_id },
    ];

    it('puts the reasoning item before the call, as the first turn ended', () => {
      expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    });

    it('with the items sent back explicitly', () => {
      const second = validateCreateResponse({
        ...body,
        input: [{ role: 'user', content: 'Weather in Paris?' }, ...first.output, { type: 'function_call_output', call_id: call.call_id, output: '18 C and sunny' }],
      });
      expect(toEngineRequest(second).messages).toEqual(expectedMessages);
    });

    it('with previous_response_id, the caller loading the conversation', () => {
      const second = validateCreateResponse({ ...body, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '18 C and sunny' }] });
      const previousItems: ConversationItem[] = [{ type: 'message', role: 'user', content: 'Weather in Paris?' }, ...(first.output as ConversationItem[])];
      expect(toEngineRequest(second, { previousItems }).messages).toEqual(expectedMessages);
    });

    it('with item references, as the AI SDK sends them', () => {
      const second = validateCreateResponse({
        ...body,
        input: [{ role: 'user', content: 'Weather in Paris?' }, ...first.output.map((item) => ({ type: 'item_reference', id: item.id })), { type: 'function_call_output', call_id: call.call_id, output: '18 C and sunny' }],
      });
      const ids = referencedItemIds(second);
      expect(ids).toEqual(first.output.map((item) => item.id));
      const referencedItems = new Map(first.output.map((item) => [item.id, item as ConversationItem]));
      expect(toEngineRequest(second, { referencedItems }).messages).toEqual(expectedMessages);
    });
  });

  it('gives a reasoning item to the assistant message after it, and joins text and calls of one turn', () => {
    const first = firstTurn({ model: 'quantum-reasoner', input: 'Hi', tools: [weather] }, [
      { type: 'reasoning', text: 'Greet, then check.' },
      { type: 'content', text: 'Hello! Checking.' },
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool_calls', usage },
    ]);
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    const call = first.output[2]!;
    const messages = toEngineRequest(validateCreateResponse({ model: 'quantum-reasoner', input: [...first.output, { type: 'function_call_output', call_id: call.type === 'function_call' ? call.call_id : '', output: 'ok' }] })).messages;
    expect(messages.slice(0, 1)).toEqual([
      { role: 'assistant', content: 'Hello! Checking.', reasoning: 'Greet, then check.', toolCalls: [expect.objectContaining({ function: { name: 'get_weather', arguments: '{}' } })] },
    ]);
  });

  it('reads developer as system and joins text parts', () => {
    const messages = toEngineRequest(validateCreateResponse({ model: 'm', input: [{ role: 'developer', content: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] }, { role: 'user', content: 'c' }] })).messages;
    expect(messages).toEqual([{ role: 'system', content: 'ab' }, { role: 'user', content: 'c' }]);
  });

  it('refuses an output for a call nobody made, naming the item', () => {
    const request = validateCreateResponse({ model: 'm', input: [{ role: 'user', content: 'x' }, { type: 'function_call_output', call_id: 'call_nope', output: '1' }] });
    expect(refusal(() => toEngineRequest(request))).toEqual({ code: 'invalid_value', param: 'input[1].call_id' });
  });

  it('answers an unresolved reference with response_not_found (404)', () => {
    const request = validateCreateResponse({ model: 'm', input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_gone' }] });
    expect(refusal(() => toEngineRequest(request, { referencedItems: new Map() }))).toEqual({ code: 'response_not_found', param: 'input[1].id' });
  });

  it('refuses a conversation with nothing to answer', () => {
    expect(refusal(() => toEngineRequest(validateCreateResponse({ model: 'm', input: [] })))).toEqual({ code: 'invalid_value', param: 'input' });
  });
});
