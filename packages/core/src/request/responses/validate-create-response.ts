import type * as z from 'zod';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import { formatParamPath, zodIssueToError } from '../zod-issue-to-error.js';
import { defaultTemperature, maxMetadataEntries } from '../../schemas/chat-completion-request.js';
import {
  createResponseRequestSchema,
  includeOutputTextLogprobs,
  knownCreateResponseFields,
  maxResponseTools,
} from '../../schemas/responses/create-response-request.js';
import { inputContentPartTypes, inputItemSchemasByType, type InputItem, type InputItemType } from '../../schemas/responses/input-item.js';
import { responseFunctionToolSchema, responseToolTypes, type ResponseFunctionTool, type ResponseToolChoice } from '../../schemas/responses/response-tool.js';
import type { ResponseTextFormat } from '../../schemas/responses/response-text-format.js';
import { readPlainMessageItem, readPlainResponseFields, type ResponseRequestFields } from './read-plain-response-request.js';
import { createToolSchemaBudget, findToolSchemaProblem, type ToolSchemaBudget } from '../../tools/validate-tool-schema.js';

/** A create-response request that passed every check (decisions §2 and §10), defaults applied. */
export interface ValidatedResponseRequest {
  model: string;
  /** The input as items (a string input is one user message), in order, `type` always set. */
  input: InputItem[];
  instructions: string | undefined;
  tools: ResponseFunctionTool[];
  /** `"auto"` with tools, `"none"` without, unless the client chose. */
  toolChoice: ResponseToolChoice;
  parallelToolCalls: boolean;
  textFormat: ResponseTextFormat;
  verbosity: 'low' | 'medium' | 'high' | undefined;
  reasoningEffort: 'low' | 'medium' | 'high' | undefined;
  reasoningSummary: 'auto' | 'concise' | 'detailed' | undefined;
  maxOutputTokens: number | undefined;
  temperature: number;
  topP: number | undefined;
  /** Present when `include` asked for the answer's log probabilities: how many alternatives per token. */
  logprobs: { topLogprobs: number } | undefined;
  stream: boolean;
  /** `store`, true unless the client said false. */
  store: boolean;
  previousResponseId: string | undefined;
  background: boolean;
  metadata: Record<string, string>;
  user: string | undefined;
  /** Unknown top-level fields, as sent, in body order (`ignoredParamsHeader` names them). */
  ignoredParams: string[];
  /** The unknown top-level fields with their values (undefined when none), for an engine's pass-through. */
  unknownFields: Record<string, unknown> | undefined;
}

const inputItemTypes: ReadonlySet<string> = new Set(Object.keys(inputItemSchemasByType));
const contentPartTypes: ReadonlySet<string> = new Set(inputContentPartTypes);
const toolTypes: ReadonlySet<string> = new Set(responseToolTypes);
const requestWithoutListsSchema = createResponseRequestSchema.omit({ input: true, tools: true });

function invalid(param: string, message: string, code: 'invalid_value' | 'unsupported_value' = 'invalid_value') {
  return new QuantumChatError(code, message, { param });
}

function firstIssue(error: z.ZodError, basePath: PropertyKey[] = []): QuantumChatError {
  return zodIssueToError(error.issues[0]!, basePath);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The item's type: a typeless item is a message when it has a role, else a reference when it has an id. */
function itemType(item: Record<string, unknown>, index: number): InputItemType {
  const type = item.type;
  if (type === undefined || type === null) {
    if (item.role !== undefined) return 'message';
    if (item.id !== undefined) return 'item_reference';
    throw new QuantumChatError('missing_required_parameter', `Missing required parameter: 'input[${index}].type'.`, { param: `input[${index}].type` });
  }
  if (typeof type !== 'string') throw new QuantumChatError('invalid_type', `Invalid type for 'input[${index}].type': expected a string.`, { param: `input[${index}].type` });
  if (!inputItemTypes.has(type)) {
    throw invalid(
      `input[${index}].type`,
      `Unsupported value for 'input[${index}].type': input items of type '${type.slice(0, 64)}' are not supported; use message, function_call, function_call_output, reasoning or item_reference.`,
      'unsupported_value',
    );
  }
  return type as InputItemType;
}

function checkContentParts(content: unknown, path: PropertyKey[]): void {
  if (!Array.isArray(content)) return;
  content.forEach((part, index) => {
    const type = isObject(part) ? part.type : undefined;
    if (typeof type === 'string' && !contentPartTypes.has(type)) {
      const param = formatParamPath([...path, index, 'type']);
      throw invalid(param, `Unsupported value for '${param}': content parts of type '${type.slice(0, 64)}' are not supported; only input_text and output_text are.`, 'unsupported_value');
    }
  });
}

/**
 * One input item through its schema (after the checks that name a refused type): the path
 * every item can take, and the one `readPlainMessageItem` must agree with. @internal
 */
export function readInputItemWithSchema(item: Record<string, unknown>, index: number): InputItem {
  const type = itemType(item, index);
  const path = ['input', index];
  if (type === 'message') {
    checkContentParts(item.content, [...path, 'content']);
    if (item.role === undefined || item.role === null) throw new QuantumChatError('missing_required_parameter', `Missing required parameter: 'input[${index}].role'.`, { param: `input[${index}].role` });
  }
  if (type === 'function_call_output') checkContentParts(item.output, [...path, 'output']);
  const parsed = inputItemSchemasByType[type].safeParse(item, { reportInput: true });
  if (!parsed.success) throw firstIssue(parsed.error, path);
  // Whether a function_call_output answers a known call waits for the conversation
  // (`toEngineRequest`): the call may be in a previous response or a referenced item.
  return { ...parsed.data, type } as InputItem;
}

function validateInput(raw: unknown): InputItem[] {
  if (typeof raw === 'string') return [{ type: 'message', role: 'user', content: raw }];
  if (!Array.isArray(raw)) throw new QuantumChatError('invalid_type', "Invalid type for 'input': expected a string or an array of input items.", { param: 'input' });
  const items: InputItem[] = [];
  for (let index = 0; index < raw.length; index++) {
    const item: unknown = raw[index];
    if (!isObject(item)) throw new QuantumChatError('invalid_type', `Invalid type for 'input[${index}]': expected an input item object.`, { param: `input[${index}]` });
    items.push(readPlainMessageItem(item) ?? readInputItemWithSchema(item, index));
  }
  return items;
}

/** The top-level fields (lists apart) through the schema: what `readPlainResponseFields` must agree with. @internal */
export function readResponseFieldsWithSchema(fields: Record<string, unknown>): ResponseRequestFields {
  const parsed = requestWithoutListsSchema.safeParse(fields, { reportInput: true });
  if (!parsed.success) throw firstIssue(parsed.error);
  return parsed.data;
}

function validateTools(raw: unknown, budget: ToolSchemaBudget): ResponseFunctionTool[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new QuantumChatError('invalid_type', "Invalid type for 'tools': expected an array of tools.", { param: 'tools' });
  if (raw.length > maxResponseTools) throw invalid('tools', `Invalid value for 'tools': at most ${maxResponseTools} tools are allowed.`);
  const names = new Set<string>();
  return raw.map((tool: unknown, index) => {
    if (!isObject(tool)) throw new QuantumChatError('invalid_type', `Invalid type for 'tools[${index}]': expected a tool object.`, { param: `tools[${index}]` });
    const type = tool.type;
    if (typeof type === 'string' && !toolTypes.has(type)) {
      // Hosted tools (web or file search, computer use, remote MCP servers) would have our server
      // act or call a URL on a client's word: refused by name, never attempted.
      throw invalid(`tools[${index}].type`, `Unsupported value for 'tools[${index}].type': tools of type '${type.slice(0, 64)}' are not supported; only 'function' tools are.`, 'unsupported_value');
    }
    const parsed = responseFunctionToolSchema.safeParse(tool, { reportInput: true });
    if (!parsed.success) throw firstIssue(parsed.error, ['tools', index]);
    const value = parsed.data;
    if (names.has(value.name)) throw invalid(`tools[${index}].name`, `Invalid value for 'tools[${index}].name': the name '${value.name}' is used twice.`);
    names.add(value.name);
    if (value.parameters !== undefined && value.parameters !== null) {
      const problem = findToolSchemaProblem(value.parameters, budget);
      if (problem !== undefined) {
        const param = `tools[${index}].parameters`;
        throw new QuantumChatError('invalid_tool_schema', `Invalid schema for function '${value.name}' in '${param}': ${problem.message}.`, { param });
      }
    }
    return value;
  });
}

/** Hosted-tool choices (`{type:"web_search_preview"}`, `allowed_tools`, `mcp`) are refused by name. */
function checkToolChoiceType(raw: unknown): void {
  if (isObject(raw) && typeof raw.type === 'string' && raw.type !== 'function') {
    throw invalid('tool_choice.type', `Unsupported value for 'tool_choice.type': '${raw.type.slice(0, 64)}' is not supported; choose 'none', 'auto', 'required' or a function.`, 'unsupported_value');
  }
}

function resolveToolChoice(choice: ResponseToolChoice, tools: ResponseFunctionTool[]): ResponseToolChoice {
  if (choice === 'required' && tools.length === 0) throw invalid('tool_choice', "Invalid value for 'tool_choice': 'required' needs at least one tool in 'tools'.");
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.name)) {
    throw invalid('tool_choice', `Invalid value for 'tool_choice': no tool named '${choice.name.slice(0, 64)}' is in 'tools'.`);
  }
  return choice;
}

function checkTextFormat(format: ResponseTextFormat, budget: ToolSchemaBudget): void {
  if (format.type !== 'json_schema') return;
  const problem = findToolSchemaProblem(format.schema, budget);
  if (problem !== undefined) {
    const param = 'text.format.schema';
    throw invalid(param, `Invalid schema for response format '${format.name}' in '${param}': ${problem.message}.`);
  }
}

/**
 * Validates a parsed body as a create-response request (decisions §2, §10): unknown top-level
 * fields are ignored and reported, `null` reads as absent, defaults are applied, and the first
 * problem becomes a 400 that names its field.
 */
export function validateCreateResponse(body: unknown): ValidatedResponseRequest {
  if (!isObject(body)) throw new QuantumChatError('invalid_type', 'The request body must be a JSON object.');
  const ignoredParams: string[] = [];
  let unknownFields: Record<string, unknown> | undefined;
  /** The known top-level fields but the lists, `null`s dropped. */
  const fields: Record<string, unknown> = {};
  let rawInput: unknown;
  let rawTools: unknown;
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (!knownCreateResponseFields.has(key)) {
      ignoredParams.push(key);
      (unknownFields ??= {})[key] = value;
    } else if (value === null) continue;
    else if (key === 'input') rawInput = value;
    else if (key === 'tools') rawTools = value;
    else fields[key] = value;
  }
  if (fields.model === undefined) throw new QuantumChatError('missing_required_parameter', "Missing required parameter: 'model'.", { param: 'model' });
  if (rawInput === undefined && fields.previous_response_id === undefined) {
    throw new QuantumChatError('missing_required_parameter', "Missing required parameter: 'input' (or 'previous_response_id').", { param: 'input' });
  }
  const input = rawInput === undefined ? [] : validateInput(rawInput);
  // One budget for all schemas of a request, as in chat.
  const budget = createToolSchemaBudget();
  const tools = validateTools(rawTools, budget);
  checkToolChoiceType(fields.tool_choice);
  const request = readPlainResponseFields(fields) ?? readResponseFieldsWithSchema(fields);

  if (request.metadata !== undefined && Object.keys(request.metadata).length > maxMetadataEntries) {
    throw invalid('metadata', `Invalid value for 'metadata': at most ${maxMetadataEntries} entries are allowed.`);
  }
  const store = request.store ?? true;
  if (request.background === true && !store) throw invalid('background', "Invalid value for 'background': a background response needs 'store' to be true.");
  const textFormat = request.text?.format ?? { type: 'text' as const };
  checkTextFormat(textFormat, budget);
  const wantsLogprobs = request.include?.includes(includeOutputTextLogprobs) ?? false;
  if (request.top_logprobs !== undefined && request.top_logprobs > 0 && !wantsLogprobs) {
    throw invalid('top_logprobs', `Invalid value for 'top_logprobs': it needs '${includeOutputTextLogprobs}' in 'include'.`);
  }
  return {
    model: request.model,
    input,
    instructions: request.instructions,
    tools,
    toolChoice: request.tool_choice === undefined ? (tools.length > 0 ? 'auto' : 'none') : resolveToolChoice(request.tool_choice, tools),
    parallelToolCalls: request.parallel_tool_calls ?? true,
    textFormat,
    verbosity: request.text?.verbosity ?? undefined,
    reasoningEffort: request.reasoning?.effort ?? undefined,
    reasoningSummary: request.reasoning?.summary ?? undefined,
    maxOutputTokens: request.max_output_tokens,
    temperature: request.temperature ?? defaultTemperature,
    topP: request.top_p,
    logprobs: wantsLogprobs ? { topLogprobs: request.top_logprobs ?? 0 } : undefined,
    stream: request.stream ?? false,
    store,
    previousResponseId: request.previous_response_id,
    background: request.background ?? false,
    metadata: request.metadata ?? {},
    user: request.user,
    ignoredParams,
    unknownFields,
  };
}
