import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { createRequest, weatherTool } from '../test/request-fixtures.js';
import { countPromptTokens } from './count-prompt-tokens.js';

describe('countPromptTokens', () => {
  it('should count 3 per message plus role and content, plus 3 for the reply', () => {
    const request = createRequest({ user: 'Hello there' });
    expect(countPromptTokens(request)).toBe(3 + countTokens('user') + countTokens('Hello there') + 3);
  });

  it('should count tool definitions as their JSON', () => {
    const request = createRequest({ user: 'Hello there', tools: [weatherTool] });
    expect(countPromptTokens(request) - countPromptTokens(createRequest({ user: 'Hello there' }))).toBe(countTokens(JSON.stringify([weatherTool])));
  });

  it('should count assistant tool calls and tool results', () => {
    const request = createRequest({
      messages: [
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } }] },
        { role: 'tool', toolCallId: 'call_1', content: '{"temperature":3}' },
      ],
    });
    const assistant = 3 + countTokens('assistant') + 3 + countTokens('get_weather') + countTokens('{"location":"Oslo"}');
    const tool = 3 + countTokens('tool') + countTokens('{"temperature":3}');
    expect(countPromptTokens(request)).toBe(assistant + tool + 3);
  });

  it('should treat special-token text in a message as plain text', () => {
    expect(countPromptTokens(createRequest({ user: 'say <|endoftext|> now' }))).toBeGreaterThan(8);
  });
});
