import { describe, expect, it } from 'vitest';
import { QuantumChatApiError } from './errors/api-error.js';
import { APIResponseValidationError } from './errors/connection-errors.js';
import { readChatCompletion } from './read-chat-completion.js';

const completion = (message: Record<string, unknown>) => ({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: 'stop' }] });

describe('readChatCompletion', () => {
  it('should expose `reasoning` as `reasoning_content`, also beside an empty reasoning_content', () => {
    expect(readChatCompletion(completion({ role: 'assistant', reasoning: 'Hmm', content: 'Hi' }), {}).choices[0]?.message.reasoning_content).toBe('Hmm');
    expect(readChatCompletion(completion({ role: 'assistant', reasoning_content: '', reasoning: 'Hmm', content: 'Hi' }), {}).choices[0]?.message.reasoning_content).toBe('Hmm');
    expect(readChatCompletion(completion({ role: 'assistant', reasoning_content: 'Own', reasoning: 'Other', content: 'Hi' }), {}).choices[0]?.message.reasoning_content).toBe('Own');
  });

  it('should throw the error a 200 body holds, in every shape', () => {
    for (const body of [{ error: { message: 'Nope', code: 'x' } }, { object: 'error', message: 'Nope', type: 'BadRequestError', code: 400 }]) {
      const failure = (() => {
        try {
          readChatCompletion(body, {});
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(QuantumChatApiError.isInstance(failure) && !APIResponseValidationError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ message: 'Nope' });
    }
  });
});
