import type { ChatCompletionCreateParams, InputItem, ResponseCreateParams, ResponseObject, ToolCall, Usage } from '@quantum-chat/client';

/** The text of a chat message's content (a string, or text parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

/**
 * The playground's chat request as a Responses request: the conversation as explicit input
 * items (an answer's tool calls as `function_call` items, their results as
 * `function_call_output`), the tools flattened, and `store: false`, since every turn sends the
 * whole conversation again.
 */
export function toResponsesRequest(request: ChatCompletionCreateParams): ResponseCreateParams {
  const input: InputItem[] = [];
  for (const message of request.messages) {
    if (message.role === 'tool') {
      input.push({ type: 'function_call_output', call_id: message.tool_call_id, output: textOf(message.content) });
      continue;
    }
    const text = textOf(message.content);
    if (message.role === 'assistant') {
      if (text !== '') input.push({ type: 'message', role: 'assistant', content: text });
      for (const call of message.tool_calls ?? []) input.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
      continue;
    }
    input.push({ type: 'message', role: message.role === 'system' || message.role === 'developer' ? message.role : 'user', content: text });
  }
  const out: ResponseCreateParams = { model: request.model, input, store: false };
  if (request.temperature !== undefined && request.temperature !== null) out.temperature = request.temperature;
  if (typeof request.max_tokens === 'number') out.max_output_tokens = request.max_tokens;
  if (request.tools !== undefined) {
    out.tools = request.tools.map((tool) => ({ type: 'function', name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters }) as NonNullable<ResponseCreateParams['tools']>[number]);
    if (typeof request.tool_choice === 'string') out.tool_choice = request.tool_choice;
  }
  return out;
}

/** A response's function calls as the chat tool calls the conversation keeps. */
export function toolCallsOf(response: ResponseObject): ToolCall[] {
  return response.output.flatMap((item) => (item.type === 'function_call' ? [{ id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } }] : []));
}

/** The chat finish reason a response's end corresponds to. */
export function finishReasonOf(response: ResponseObject): string {
  if (response.status === 'incomplete') return response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length';
  return toolCallsOf(response).length > 0 ? 'tool_calls' : 'stop';
}

/** A response's usage in the chat shape the turn shows. */
export function usageOf(response: ResponseObject): Usage | null {
  const usage = response.usage;
  if (usage === null) return null;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details.reasoning_tokens },
  } as Usage;
}
