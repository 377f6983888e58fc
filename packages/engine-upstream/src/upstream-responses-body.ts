import { selectPassedThrough, type ChatEngineRequest, type EngineMessage, type PassThroughPolicy, type ToolDefinition } from '@quantum-chat/core';

/** An input item of a Responses request, in the forms every runtime that serves `/v1/responses` reads. */
type ResponsesInputItem =
  | { type: 'message'; role: 'system' | 'user' | 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/**
 * One chat message as input items: system and user messages as messages (a system message
 * stays `system`, which every chat template knows, rather than `developer`); an assistant turn
 * as its text, then one `function_call` per call; a tool result as `function_call_output`.
 * Earlier reasoning is not sent back, as on the chat wire: with `store: false` a runtime has no
 * item to match it to. A message's `name` has no field here and is left out.
 */
function toInputItems(message: EngineMessage, items: ResponsesInputItem[]): void {
  switch (message.role) {
    case 'tool':
      items.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
      return;
    case 'assistant':
      if (message.content !== null && message.content !== '') items.push({ type: 'message', role: 'assistant', content: message.content });
      for (const call of message.toolCalls ?? []) items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
      return;
    default:
      items.push({ type: 'message', role: message.role, content: message.content });
  }
}

/** A tool as the Responses API has it: flat, without the `null`s our schema accepts. */
function toResponsesTool(tool: ToolDefinition) {
  const { name, description, parameters, strict } = tool.function;
  return {
    type: 'function' as const,
    name,
    ...(description != null ? { description } : {}),
    ...(parameters != null ? { parameters } : {}),
    ...(strict != null ? { strict } : {}),
  };
}

/** `response_format` as the Responses API's `text.format`: flat, the schema beside its name. */
function toTextFormat(format: NonNullable<ChatEngineRequest['responseFormat']>): Record<string, unknown> {
  if (format.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', ...format.json_schema };
}

/**
 * The JSON body of a request to a runtime's `/v1/responses` (a deployment with `api:
 * 'responses'`): the same request the chat wire sends, in the Responses API's names. It always
 * streams (so timeouts and aborts work as on the chat wire) and never asks the runtime to keep
 * anything (`store: false`); the conversation goes whole in `input`, system messages included,
 * so `instructions` is not used. Fields the Responses API has no name for (`stop`, `seed`,
 * `presence_penalty`, `frequency_penalty`, `logit_bias`) are not sent (decisions §10); the
 * fields `passThrough` forwards go first, so none can replace a field set here.
 *
 * @example
 * toUpstreamResponsesBody(request, 'Qwen/Qwen3-8B'); // { model: 'Qwen/Qwen3-8B', input: [...], stream: true, store: false, ... }
 */
export function toUpstreamResponsesBody(request: ChatEngineRequest, model: string, passThrough: PassThroughPolicy = 'none'): Record<string, unknown> {
  const body: Record<string, unknown> = selectPassedThrough(passThrough, request.extraFields) ?? {};
  const input: ResponsesInputItem[] = [];
  for (const message of request.messages) toInputItems(message, input);
  body.model = model;
  body.input = input;
  body.stream = true;
  body.store = false;
  body.temperature = request.temperature;
  body.max_output_tokens = request.maxTokens;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.user !== undefined) body.user = request.user;
  if (request.tools.length > 0) {
    body.tools = request.tools.map(toResponsesTool);
    const choice = request.toolChoice;
    body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.function.name };
    body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.responseFormat !== undefined) body.text = { format: toTextFormat(request.responseFormat) };
  if (request.reasoningEffort !== undefined) body.reasoning = { effort: request.reasoningEffort };
  if (request.logprobs !== undefined) {
    body.include = ['message.output_text.logprobs'];
    if (request.logprobs.topLogprobs > 0) body.top_logprobs = request.logprobs.topLogprobs;
  }
  return body;
}
