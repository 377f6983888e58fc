import { describe, expect, it } from 'vitest';
import { QuantumChatError } from './quantum-chat-error.js';
import { toErrorHttpResponse } from './to-error-envelope.js';

describe('toErrorHttpResponse', () => {
  it('should give every 503 a retry-after, keeping one that was set', () => {
    for (const code of ['engine_unavailable', 'shutting_down'] as const) {
      expect(toErrorHttpResponse(new QuantumChatError(code, 'x')).headers['retry-after']).toBe('1');
    }
    expect(toErrorHttpResponse(new QuantumChatError('engine_unavailable', 'x', { headers: { 'retry-after': '7' } })).headers['retry-after']).toBe('7');
    expect(toErrorHttpResponse(new QuantumChatError('upstream_error', 'x')).headers['retry-after']).toBeUndefined();
  });
});
