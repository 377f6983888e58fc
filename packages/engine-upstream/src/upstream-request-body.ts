import { selectPassedThrough, type ChatEngineRequest, type EngineMessage, type PassThroughPolicy, type ToolDefinition } from '@quantum-chat/core';

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

/** The output controls of a request under their OpenAI names; only those the client set. */
function outputControls(request: ChatEngineRequest, body: Record<string, unknown>): void {
  if (request.responseFormat !== undefined) body.response_format = request.responseFormat;
  if (request.logprobs !== undefined) {
    body.logprobs = true;
    if (request.logprobs.topLogprobs > 0) body.top_logprobs = request.logprobs.topLogprobs;
  }
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.logitBias !== undefined) body.logit_bias = request.logitBias;
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
}

/**
 * The JSON body sent upstream: every field of the request the runtime can honour. It streams,
 * with usage, unless `stream` is false: a client that waits for the whole answer gets it from
 * one JSON completion (decisions §8), which costs the runtime and us far less than a stream. Tool fields are sent only with tools: OpenAI answers 400
 * to `tool_choice` without `tools`. The client's unknown top-level fields (`top_k`,
 * `chat_template_kwargs`, ...) that `passThrough` forwards go first, so none can replace a field
 * set here; the policy is applied here too, whoever filled `extraFields`.
 *
 * @example
 * toUpstreamRequestBody(request, 'llama3.2'); // { model: 'llama3.2', messages: [...], stream: true, ... }
 */
export function toUpstreamRequestBody(request: ChatEngineRequest, model: string, passThrough: PassThroughPolicy = 'none', stream = true): Record<string, unknown> {
  const body: Record<string, unknown> = selectPassedThrough(passThrough, request.extraFields) ?? {};
  body.model = model;
  body.messages = request.messages.map(toUpstreamMessage);
  body.stream = stream;
  if (stream) body.stream_options = { include_usage: true };
  body.temperature = request.temperature;
  body.max_tokens = request.maxTokens;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.user !== undefined) body.user = request.user;
  if (request.tools.length > 0) {
    body.tools = request.tools.map(toUpstreamTool);
    body.tool_choice = request.toolChoice;
    body.parallel_tool_calls = request.parallelToolCalls;
  }
  outputControls(request, body);
  return body;
}
