import * as z from 'zod';
import type { ChatEngineRequest, EngineMessage } from '../engine/chat-engine.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import {
  chatCompletionRequestSchema,
  defaultMaxTokens,
  defaultTemperature,
  knownRequestFields,
  maxLogitBiasEntries,
  maxMetadataEntries,
} from '../schemas/chat-completion-request.js';
import { messageRoles, messageSchemasByRole, type MessageContent } from '../schemas/message.js';
import type { EngineResponseFormat, ResponseFormat } from '../schemas/response-format.js';
import type { ToolChoice, ToolDefinition } from '../schemas/tool-definition.js';
import { createToolSchemaBudget, findToolSchemaProblem, type ToolSchemaBudget } from '../tools/validate-tool-schema.js';
import { readPlainRequestFields, type RequestFields } from './read-plain-request-fields.js';
import { formatParamPath, zodIssueToError } from './zod-issue-to-error.js';

/** A chat request that passed every check, ready for an engine (`reasoning` is set by the model). */
export interface ValidatedChatRequest {
  engineRequest: Omit<ChatEngineRequest, 'reasoning'>;
  stream: boolean;
  includeUsage: boolean;
  /** `stream_options.resumable` as sent (undefined when absent: the server's default applies). */
  resumable: boolean | undefined;
  /** Unknown top-level fields, as sent, in body order (`ignoredParamsHeader` names them). */
  ignoredParams: string[];
  /**
   * The unknown top-level fields with their values, as sent (`undefined` when there are none):
   * an engine that passes everything through gets them instead of the header naming them.
   */
  unknownFields: Record<string, unknown> | undefined;
}

const requestWithoutMessages = chatCompletionRequestSchema.omit({ messages: true });

function invalid(param: string, message: string, code: 'invalid_value' | 'unsupported_value' = 'invalid_value') {
  return new QuantumChatError(code, message, { param });
}

function firstIssue(result: { success: false; error: z.ZodError }, basePath: PropertyKey[] = []): QuantumChatError {
  return zodIssueToError(result.error.issues[0]!, basePath);
}

/** Text parts are joined; any other part type is a 400 `unsupported_value`. */
function contentToText(content: MessageContent): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function checkContentParts(content: unknown, path: PropertyKey[]): void {
  if (!Array.isArray(content)) return;
  content.forEach((part, index) => {
    const type = typeof part === 'object' && part !== null ? (part as { type?: unknown }).type : undefined;
    if (typeof type === 'string' && type !== 'text') {
      throw invalid(formatParamPath([...path, index, 'type']), `Content part type '${type}' is not supported; only 'text' parts are.`, 'unsupported_value');
    }
  });
}

/**
 * The common message, `{role, content: "text", name?}` without tool calls or reasoning, read
 * without zod: the same result, twenty times faster, which matters for a 1 MiB body of tens of
 * thousands of messages. Anything else returns `undefined` and takes the schema path.
 */
function plainTextMessage(message: Record<string, unknown>, role: string): EngineMessage | undefined {
  const { content, name } = message;
  if (typeof content !== 'string' || role === 'tool') return undefined;
  if (name !== undefined && name !== null && typeof name !== 'string') return undefined;
  const named = name ? { name } : {};
  if (role !== 'assistant') return { role: role === 'user' ? 'user' : 'system', content, ...named };
  const { tool_calls: toolCalls, reasoning_content: reasoningContent, reasoning, refusal } = message;
  if (toolCalls !== undefined || reasoningContent !== undefined || reasoning !== undefined || refusal !== undefined) return undefined;
  return { role: 'assistant', content, ...named };
}

function validateMessages(raw: unknown): EngineMessage[] {
  if (raw === undefined) throw new QuantumChatError('missing_required_parameter', "Missing required parameter: 'messages'.", { param: 'messages' });
  if (!Array.isArray(raw)) throw new QuantumChatError('invalid_type', "Invalid type for 'messages': expected an array of message objects.", { param: 'messages' });
  if (raw.length === 0) throw invalid('messages', "Invalid value for 'messages': at least one message is required.");
  /** Made at the first assistant tool call: most conversations have none. */
  let knownCallIds: Set<string> | undefined;
  return raw.map((message: unknown, index): EngineMessage => {
    const path = ['messages', index];
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      throw new QuantumChatError('invalid_type', `Invalid type for 'messages[${index}]': expected a message object.`, { param: `messages[${index}]` });
    }
    const role = (message as { role?: unknown }).role;
    if (role === undefined || role === null) throw new QuantumChatError('missing_required_parameter', `Missing required parameter: 'messages[${index}].role'.`, { param: `messages[${index}].role` });
    if (typeof role !== 'string' || !(messageRoles as readonly string[]).includes(role)) {
      throw invalid(`messages[${index}].role`, `Invalid value for 'messages[${index}].role': expected one of ${messageRoles.join(', ')}.`);
    }
    const fast = plainTextMessage(message as Record<string, unknown>, role);
    if (fast !== undefined) return fast;
    checkContentParts((message as { content?: unknown }).content, [...path, 'content']);
    const parsed = messageSchemasByRole[role as keyof typeof messageSchemasByRole].safeParse(message, { reportInput: true });
    if (!parsed.success) throw firstIssue(parsed, path);
    const value = parsed.data;
    switch (value.role) {
      case 'system':
      case 'developer':
      case 'user':
        return { role: value.role === 'user' ? 'user' : 'system', content: contentToText(value.content), ...(value.name ? { name: value.name } : {}) };
      case 'assistant': {
        const toolCalls = value.tool_calls ?? undefined;
        if ((value.content === null || value.content === undefined) && !toolCalls?.length) {
          // The rule spans two fields, so the message is at fault, not one of them: the same body
          // reads as "content missing" or "tool_calls missing". The document's anyOf sits on the message too.
          throw new QuantumChatError(
            'missing_required_parameter',
            `Missing required parameter: 'messages[${index}].content' or 'messages[${index}].tool_calls' (an assistant message needs content that is not null, or at least one tool call).`,
            { param: `messages[${index}]` },
          );
        }
        if (toolCalls?.length) {
          const ids = (knownCallIds ??= new Set());
          for (const call of toolCalls) ids.add(call.id);
        }
        const reasoning = value.reasoning_content ?? value.reasoning ?? undefined;
        return {
          role: 'assistant',
          content: value.content === null || value.content === undefined ? null : contentToText(value.content),
          ...(toolCalls?.length ? { toolCalls } : {}),
          ...(reasoning ? { reasoning } : {}),
          ...(value.name ? { name: value.name } : {}),
        };
      }
      case 'tool':
        if (knownCallIds?.has(value.tool_call_id) !== true) {
          throw invalid(`messages[${index}].tool_call_id`, `Invalid value for 'messages[${index}].tool_call_id': no earlier assistant tool call has the id '${value.tool_call_id.slice(0, 64)}'.`);
        }
        return { role: 'tool', content: contentToText(value.content), toolCallId: value.tool_call_id };
    }
  });
}

function validateTools(tools: ToolDefinition[], budget: ToolSchemaBudget): void {
  const names = new Set<string>();
  tools.forEach((tool, index) => {
    if (names.has(tool.function.name)) throw invalid(`tools[${index}].function.name`, `Invalid value for 'tools[${index}].function.name': the name '${tool.function.name}' is used twice.`);
    names.add(tool.function.name);
    const parameters = tool.function.parameters;
    if (parameters === undefined || parameters === null) return;
    const problem = findToolSchemaProblem(parameters, budget);
    if (problem !== undefined) {
      const param = `tools[${index}].function.parameters`;
      throw new QuantumChatError('invalid_tool_schema', `Invalid schema for function '${tool.function.name}' in '${param}': ${problem.message}.`, { param });
    }
  });
}

/** The JSON format an engine gets, its schema checked as a tool's parameters are (same budget). */
function resolveResponseFormat(format: ResponseFormat | undefined, budget: ToolSchemaBudget): EngineResponseFormat | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, description, schema, strict } = format.json_schema;
  const problem = findToolSchemaProblem(schema, budget);
  if (problem !== undefined) {
    const param = 'response_format.json_schema.schema';
    throw invalid(param, `Invalid schema for response format '${name}' in '${param}': ${problem.message}.`);
  }
  return {
    type: 'json_schema',
    json_schema: { name, ...(description != null ? { description } : {}), schema, ...(strict != null ? { strict } : {}) },
  };
}

function resolveToolChoice(choice: ToolChoice | undefined, tools: ToolDefinition[]): ToolChoice {
  if (choice === undefined) return tools.length > 0 ? 'auto' : 'none';
  if (choice === 'required' && tools.length === 0) throw invalid('tool_choice', "Invalid value for 'tool_choice': 'required' needs at least one tool in 'tools'.");
  if (typeof choice === 'object' && !tools.some((tool) => tool.function.name === choice.function.name)) {
    throw invalid('tool_choice', `Invalid value for 'tool_choice': no tool named '${choice.function.name.slice(0, 64)}' is in 'tools'.`);
  }
  return choice;
}

function parseRequestFields(known: Record<string, unknown>): RequestFields {
  const parsed = requestWithoutMessages.safeParse(known, { reportInput: true });
  if (!parsed.success) throw firstIssue(parsed);
  return parsed.data;
}

/**
 * Validates a parsed body as a chat completion request (decisions §2): unknown top-level
 * fields are ignored and reported, `null` reads as absent, defaults are applied, and the
 * first problem becomes a 400 that names its field.
 */
export function validateChatRequest(body: unknown): ValidatedChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new QuantumChatError('invalid_type', 'The request body must be a JSON object.');
  }
  const ignoredParams: string[] = [];
  let unknownFields: Record<string, unknown> | undefined;
  const known: Record<string, unknown> = {};
  // Keys, not entries: no [key, value] pair allocated per field of every request.
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key];
    if (!knownRequestFields.has(key)) {
      ignoredParams.push(key);
      (unknownFields ??= {})[key] = value;
    } else if (value !== null) known[key] = value;
  }
  if (known.model === undefined) throw new QuantumChatError('missing_required_parameter', "Missing required parameter: 'model'.", { param: 'model' });
  const messages = validateMessages(known.messages);
  const request = readPlainRequestFields(known) ?? parseRequestFields(known);

  if (request.n !== undefined && request.n !== 1) throw invalid('n', "Unsupported value for 'n': only 1 choice per request is supported.", 'unsupported_value');
  if (request.max_tokens !== undefined && request.max_completion_tokens !== undefined && request.max_tokens !== request.max_completion_tokens) {
    throw invalid('max_completion_tokens', "Invalid value for 'max_completion_tokens': it differs from 'max_tokens'; send one of them.");
  }
  if (request.metadata !== undefined && Object.keys(request.metadata).length > maxMetadataEntries) {
    throw invalid('metadata', `Invalid value for 'metadata': at most ${maxMetadataEntries} entries are allowed.`);
  }
  if (request.top_logprobs !== undefined && request.logprobs !== true) {
    throw invalid('top_logprobs', "Invalid value for 'top_logprobs': it needs 'logprobs' set to true.");
  }
  if (request.logit_bias !== undefined && Object.keys(request.logit_bias).length > maxLogitBiasEntries) {
    throw invalid('logit_bias', `Invalid value for 'logit_bias': at most ${maxLogitBiasEntries} tokens may be biased.`);
  }
  const tools = request.tools ?? [];
  // One budget for all schemas of a request: 128 tools each checked at its own cap would stall the server.
  const schemaBudget = createToolSchemaBudget();
  validateTools(tools, schemaBudget);
  const responseFormat = resolveResponseFormat(request.response_format, schemaBudget);
  const toolChoice = resolveToolChoice(request.tool_choice, tools);
  const stop = request.stop === undefined ? undefined : typeof request.stop === 'string' ? [request.stop] : request.stop;

  const engineRequest: ValidatedChatRequest['engineRequest'] = {
    model: request.model,
    messages,
    tools,
    toolChoice,
    parallelToolCalls: request.parallel_tool_calls ?? true,
    temperature: request.temperature ?? defaultTemperature,
    maxTokens: request.max_tokens ?? request.max_completion_tokens ?? defaultMaxTokens,
  };
  // Assigned one by one, not spread from `{}`s: this runs once per request.
  if (request.top_p !== undefined) engineRequest.topP = request.top_p;
  if (stop !== undefined && stop.length > 0) engineRequest.stop = stop;
  if (request.seed !== undefined) engineRequest.seed = request.seed;
  if (request.user !== undefined) engineRequest.user = request.user;
  if (responseFormat !== undefined) engineRequest.responseFormat = responseFormat;
  if (request.logprobs === true) engineRequest.logprobs = { topLogprobs: request.top_logprobs ?? 0 };
  if (request.presence_penalty !== undefined) engineRequest.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) engineRequest.frequencyPenalty = request.frequency_penalty;
  if (request.logit_bias !== undefined) engineRequest.logitBias = request.logit_bias;
  if (request.reasoning_effort !== undefined) engineRequest.reasoningEffort = request.reasoning_effort;
  const resumable = request.stream_options?.resumable ?? undefined;
  if (resumable === true && request.stream !== true) {
    throw invalid('stream_options.resumable', "Invalid value for 'stream_options.resumable': only a stream can be resumable; set 'stream' to true or leave 'resumable' out.");
  }
  return {
    engineRequest,
    stream: request.stream ?? false,
    includeUsage: request.stream_options?.include_usage ?? false,
    resumable,
    ignoredParams,
    unknownFields,
  };
}
