import type { ChatEngineRequest, EngineMessage, ToolDefinition } from '@quantum-chat/core';

/** The OpenAI-style message the upstream receives. */
type UpstreamMessage =
  | { role: 'system' | 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; name?: string; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; content: string; tool_call_id: string };

function toUpstreamMessage(message: EngineMessage): UpstreamMessage {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', content: message.content, tool_call_id: message.toolCallId };
    case 'assistant':
      // Earlier reasoning is not sent back: DeepSeek answers 400 to `reasoning_content` in input
      // messages, and the other runtimes ignore it.
      return {
        role: 'assistant',
        content: message.content,
        ...(message.name ? { name: message.name } : {}),
        ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { ...call.function } })) } : {}),
      };
    default:
      return { role: message.role, content: message.content, ...(message.name ? { name: message.name } : {}) };
  }
}

/** A tool definition without the `null`s our schema accepts (some runtimes reject them). */
function toUpstreamTool(tool: ToolDefinition) {
  const { name, description, parameters, strict } = tool.function;
  return {
    type: 'function' as const,
    function: {
      name,
      ...(description != null ? { description } : {}),
      ...(parameters != null ? { parameters } : {}),
      ...(strict != null ? { strict } : {}),
    },
  };
}

/**
 * The JSON body sent upstream. It always streams, with usage, so that first-token and idle
 * timeouts and aborts work the same for our streaming and non-streaming clients. Tool fields are
 * sent only with tools: OpenAI answers 400 to `tool_choice` without `tools`.
 *
 * @example
 * toUpstreamRequestBody(request, 'llama3.2'); // { model: 'llama3.2', messages: [...], stream: true, ... }
 */
export function toUpstreamRequestBody(request: ChatEngineRequest, model: string): Record<string, unknown> {
  return {
    model,
    messages: request.messages.map(toUpstreamMessage),
    stream: true,
    stream_options: { include_usage: true },
    temperature: request.temperature,
    max_tokens: request.maxTokens,
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.stop !== undefined && request.stop.length > 0 ? { stop: request.stop } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
    ...(request.tools.length > 0
      ? { tools: request.tools.map(toUpstreamTool), tool_choice: request.toolChoice, parallel_tool_calls: request.parallelToolCalls }
      : {}),
  };
}
