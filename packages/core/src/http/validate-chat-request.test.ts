import { describe, expect, it } from 'vitest';
import { validateChatRequest } from './validate-chat-request.js';

const base = { model: 'quantum-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('validateChatRequest', () => {
  it('should name unknown fields so that any header can carry them', () => {
    const body = { ...base, frobnicate: 1, 'naïve': 2, 'a\r\nb': 3, 'x, y': 4, '\ud800': 5, '𑰧': 6, '100%': 7 };
    expect(validateChatRequest(body).ignoredParams).toEqual(['frobnicate', 'na%C3%AFve', 'a%0D%0Ab', 'x%2C%20y', '%EF%BF%BD', '%F0%91%B0%A7', '100%25']);
  });

  it('should read plain text messages exactly as the schema path does', () => {
    const messages = [
      { role: 'developer', content: 'be brief', name: 'ops' },
      { role: 'user', content: 'hi', name: null, extra: true },
      { role: 'assistant', content: 'hello', name: '' },
      { role: 'user', content: 'again' },
    ];
    expect(validateChatRequest({ ...base, messages }).engineRequest.messages).toEqual([
      { role: 'system', content: 'be brief', name: 'ops' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'again' },
    ]);
    expect(() => validateChatRequest({ ...base, messages: [{ role: 'user', content: 'x', name: 5 }] })).toThrow(expect.objectContaining({ param: 'messages[0].name' }));
  });
});
