import type { ChatEngine, ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';

/** A request with the defaults the core's validation applies. */
export function engineRequest(overrides: Partial<ChatEngineRequest> = {}): ChatEngineRequest {
  return {
    model: 'quantum-flash',
    messages: [{ role: 'user', content: 'Hello there' }],
    tools: [],
    toolChoice: 'none',
    parallelToolCalls: true,
    temperature: 0,
    maxTokens: 16,
    reasoning: false,
    ...overrides,
  };
}

/** Every event of one generation. */
export async function collect(engine: ChatEngine, request: ChatEngineRequest, signal = new AbortController().signal): Promise<ChatEngineEvent[]> {
  const events: ChatEngineEvent[] = [];
  for await (const event of engine.generate(request, { signal, requestId: 'test' })) events.push(event);
  return events;
}
