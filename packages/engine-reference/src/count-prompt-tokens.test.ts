import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { createRequest, weatherTool } from '../test/request-fixtures.js';
import { countPromptTokens, countPromptTokensAsync, estimatePromptTokens } from './count-prompt-tokens.js';

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

describe('counting a long prompt without holding the event loop', () => {
  const words = ['quantum', 'lattice', 'photon', 'entangle', 'qubit', 'the', 'and', 'of', 'measure', 'state', 'naïve', '—', '42', '🙂'];
  const prose = (length: number, seed = 1) => {
    let text = '';
    for (let index = 0; text.length < length; index++) text += words[(index * 7 + seed) % words.length] + (index % 11 === 0 ? '.\n' : ' ');
    return text;
  };

  it('should count in slices exactly what it counts at once, and bound it from above with its estimate', async () => {
    const requests = [
      createRequest({ user: prose(200_000) }),
      createRequest({ user: prose(70_000, 3), tools: [weatherTool] }),
      // Without a place to cut between words: long runs of one kind, CJK, emoji.
      createRequest({ user: 'a'.repeat(50_000) + '漢字'.repeat(30_000) + '😀'.repeat(20_000) }),
      createRequest({ user: 'Hello there' }),
    ];
    for (const request of requests) {
      const sliced = await countPromptTokensAsync({ ...request });
      expect(sliced).toBe(countPromptTokens({ ...request }));
      expect(estimatePromptTokens(request)).toBeGreaterThanOrEqual(sliced);
    }
    // Prose is cut only where the tokenizer splits anyway: the count is the whole text's.
    const text = prose(100_000);
    expect(countPromptTokens(createRequest({ user: text }))).toBe(countPromptTokens(createRequest({ user: 'x' })) - countTokens('x') + countTokens(text));
  });

  it('should let the event loop turn while it counts a 1 MB prompt', async () => {
    const request = createRequest({ user: prose(1_000_000) });
    let turns = 0;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    const counted = countPromptTokensAsync(request);
    await counted;
    done = true;
    // Each slice is a turn of its own; all at once would have given none.
    expect(turns).toBeGreaterThan(10);
  });
});
