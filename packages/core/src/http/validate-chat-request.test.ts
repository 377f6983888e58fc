import { describe, expect, it } from 'vitest';
import { validateChatRequest } from './validate-chat-request.js';

const base = { model: 'quantum-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('validateChatRequest', () => {
  it('should report unknown fields as sent, in body order', () => {
    const body = { ...base, frobnicate: 1, 'naïve': 2, 'a\r\nb': 3, model: 'quantum-lite' };
    expect(validateChatRequest(body).ignoredParams).toEqual(['frobnicate', 'naïve', 'a\r\nb']);
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
