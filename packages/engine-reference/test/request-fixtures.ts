import type { ChatEngineEvent, ChatEngineRequest, EngineMessage } from '@quantum-chat/core';

type ToolDefinition = ChatEngineRequest['tools'][number];

/** A request with the handler's defaults (decisions §2) and one user message. */
export function createRequest(overrides: Partial<ChatEngineRequest> & { user?: string } = {}): ChatEngineRequest {
  const { user, ...rest } = overrides;
  const messages: EngineMessage[] = [{ role: 'user', content: user ?? 'Tell me about the history of the Roman empire.' }];
  return {
    model: 'quantum-flash',
    messages,
    tools: [],
    toolChoice: (rest.tools?.length ?? 0) > 0 ? 'auto' : 'none',
    parallelToolCalls: true,
    temperature: 0.7,
    maxTokens: 4096,
    reasoning: false,
    ...rest,
  };
}

/** Every event of an iterable, in order. */
export async function collect(events: AsyncIterable<ChatEngineEvent>): Promise<ChatEngineEvent[]> {
  const collected: ChatEngineEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** The text of all events of one type. */
export function textOf(events: readonly ChatEngineEvent[], type: 'content' | 'reasoning'): string {
  return events.map((event) => (event.type === type ? event.text : '')).join('');
}

/** The finish event (always last). */
export function finishOf(events: readonly ChatEngineEvent[]): Extract<ChatEngineEvent, { type: 'finish' }> {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error('the last event is not a finish event');
  return last;
}

/** Tool calls rebuilt from their fragments, by index. */
export function toolCallsOf(events: readonly ChatEngineEvent[]): Array<{ index: number; name: string; arguments: string }> {
  const calls = new Map<number, { index: number; name: string; arguments: string }>();
  for (const event of events) {
    if (event.type !== 'tool-call') continue;
    const call = calls.get(event.index) ?? { index: event.index, name: '', arguments: '' };
    if (event.name) call.name = event.name;
    call.arguments += event.argumentsDelta;
    calls.set(event.index, call);
  }
  return [...calls.values()];
}

export const weatherTool: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather for a city.',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string', description: 'City name, e.g. Paris' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
      },
      required: ['location'],
      additionalProperties: false,
    },
  },
};

export const searchTool: ToolDefinition = {
  type: 'function',
  function: {
    name: 'search_web',
    description: 'Search the web and return matching pages.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 120 },
        max_results: { type: 'integer', minimum: 1, maximum: 10, default: 5 },
        safe_search: { type: 'boolean' },
      },
      required: ['query', 'max_results'],
    },
  },
};

export const calendarTool: ToolDefinition = {
  type: 'function',
  function: {
    name: 'create-calendar-event',
    description: 'Schedule a meeting in the calendar with attendees.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 3 },
        date: { type: 'string', format: 'date' },
        priority: { type: 'string', enum: ['low', 'normal', 'high'] },
        attendees: {
          type: 'array',
          minItems: 2,
          items: {
            type: 'object',
            properties: { email: { type: 'string', format: 'email' }, optional: { type: 'boolean', default: false } },
            required: ['email', 'optional'],
          },
        },
        reminder: {
          type: 'object',
          properties: { minutes_before: { type: 'integer', minimum: 5, maximum: 120, multipleOf: 5 }, channel: { const: 'email' } },
          required: ['minutes_before', 'channel'],
        },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 3 },
        notes: { type: ['string', 'null'] },
      },
      required: ['title', 'date', 'priority', 'attendees', 'reminder', 'tags', 'notes'],
    },
  },
};

export const calculatorTool: ToolDefinition = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluate an arithmetic expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
};

export const noParametersTool: ToolDefinition = {
  type: 'function',
  function: { name: 'get_time', description: 'Current server time.' },
};
