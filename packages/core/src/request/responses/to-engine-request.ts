import type { ChatEngineRequest, EngineMessage } from '../../engine/chat-engine.js';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import { defaultMaxTokens } from '../../schemas/chat-completion-request.js';
import type { EngineResponseFormat } from '../../schemas/response-format.js';
import type { ConversationItem, InputItem } from '../../schemas/responses/input-item.js';
import type { ResponseTextFormat } from '../../schemas/responses/response-text-format.js';
import type { ResponseToolChoice } from '../../schemas/responses/response-tool.js';
import type { ToolChoice, ToolDefinition } from '../../schemas/tool-definition.js';
import type { ValidatedResponseRequest } from './validate-create-response.js';

/** What the caller loaded from the response store before the translation. */
export interface LoadedConversation {
  /**
   * The conversation `previous_response_id` names, oldest first: each earlier response's input
   * items and then its output items (instructions are not carried over, as OpenAI does).
   */
  previousItems?: readonly ConversationItem[];
  /** The items `item_reference`s name, by id (see `referencedItemIds`). */
  referencedItems?: ReadonlyMap<string, ConversationItem>;
}

/** The ids of the items a request refers to: what the caller loads into `referencedItems`. */
export function referencedItemIds(request: Pick<ValidatedResponseRequest, 'input'>): string[] {
  const ids: string[] = [];
  for (const item of request.input) if (item.type === 'item_reference') ids.push(item.id);
  return ids;
}

/** The request's input with every reference replaced by the item it names. */
export function resolveInputItems(input: readonly InputItem[], referencedItems: ReadonlyMap<string, ConversationItem> | undefined): ConversationItem[] {
  return input.map((item, index) => {
    if (item.type !== 'item_reference') return item;
    const found = referencedItems?.get(item.id);
    if (found === undefined) {
      throw new QuantumChatError('response_not_found', `No item with id '${item.id.slice(0, 64)}' was found.`, { param: `input[${index}].id` });
    }
    return found;
  });
}

function textOf(content: string | readonly { text: string }[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

/**
 * The items of a conversation as chat messages: a reasoning item goes to the assistant turn
 * that follows it, and function calls join the assistant turn they belong to (one message with
 * its text and its calls, as chat has it). `firstInputIndex` is where the request's own items
 * start, so that an error names `input[i]`.
 */
function itemsToMessages(items: readonly ConversationItem[], firstInputIndex: number): EngineMessage[] {
  const messages: EngineMessage[] = [];
  const knownCallIds = new Set<string>();
  let pendingReasoning = '';
  /** The assistant message that later function calls join, until another kind of item ends the turn. */
  let openTurn: Extract<EngineMessage, { role: 'assistant' }> | undefined;
  const takeReasoning = (message: Extract<EngineMessage, { role: 'assistant' }>) => {
    if (pendingReasoning !== '') message.reasoning = pendingReasoning;
    pendingReasoning = '';
  };
  items.forEach((item, position) => {
    switch (item.type) {
      case 'reasoning': {
        const text = item.summary.map((part) => part.text).join('');
        pendingReasoning += text;
        openTurn = undefined;
        return;
      }
      case 'message': {
        const content = textOf(item.content);
        if (item.role === 'assistant') {
          openTurn = { role: 'assistant', content };
          takeReasoning(openTurn);
          messages.push(openTurn);
          return;
        }
        openTurn = undefined;
        pendingReasoning = '';
        messages.push({ role: item.role === 'user' ? 'user' : 'system', content });
        return;
      }
      case 'function_call': {
        if (openTurn === undefined) {
          openTurn = { role: 'assistant', content: null };
          takeReasoning(openTurn);
          messages.push(openTurn);
        }
        (openTurn.toolCalls ??= []).push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
        knownCallIds.add(item.call_id);
        return;
      }
      case 'function_call_output': {
        if (!knownCallIds.has(item.call_id)) {
          const where = position >= firstInputIndex ? `input[${position - firstInputIndex}].call_id` : 'previous_response_id';
          throw new QuantumChatError('invalid_value', `Invalid value for '${where}': no earlier function_call has the call_id '${item.call_id.slice(0, 64)}'.`, { param: where });
        }
        openTurn = undefined;
        pendingReasoning = '';
        messages.push({ role: 'tool', content: textOf(item.output), toolCallId: item.call_id });
        return;
      }
    }
  });
  return messages;
}

function toEngineTools(request: ValidatedResponseRequest): ToolDefinition[] {
  return request.tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description != null ? { description: tool.description } : {}),
      ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
      ...(tool.strict != null ? { strict: tool.strict } : {}),
    },
  }));
}

function toEngineToolChoice(choice: ResponseToolChoice): ToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** `text.format` as the engine's `response_format` (absent for plain text, the default). */
export function toEngineResponseFormat(format: ResponseTextFormat): EngineResponseFormat | undefined {
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, description, schema, strict } = format;
  return { type: 'json_schema', json_schema: { name, ...(description != null ? { description } : {}), schema, ...(strict != null ? { strict } : {}) } };
}

/**
 * A validated create-response request, with its loaded conversation, as the request every chat
 * engine already serves (decisions §10): one translation, so no engine needs to know the
 * Responses API. `reasoning` is set by the model, as for chat.
 */
export function toEngineRequest(request: ValidatedResponseRequest, loaded: LoadedConversation = {}): Omit<ChatEngineRequest, 'reasoning'> {
  const previous = loaded.previousItems ?? [];
  const own = resolveInputItems(request.input, loaded.referencedItems);
  const messages = itemsToMessages(previous.length === 0 ? own : [...previous, ...own], previous.length);
  if (request.instructions !== undefined && request.instructions !== '') messages.unshift({ role: 'system', content: request.instructions });
  if (messages.length === 0) throw new QuantumChatError('invalid_value', "Invalid value for 'input': the conversation has no message to answer.", { param: 'input' });
  const engineRequest: Omit<ChatEngineRequest, 'reasoning'> = {
    model: request.model,
    messages,
    tools: toEngineTools(request),
    toolChoice: toEngineToolChoice(request.toolChoice),
    parallelToolCalls: request.parallelToolCalls,
    temperature: request.temperature,
    maxTokens: request.maxOutputTokens ?? defaultMaxTokens,
  };
  if (request.topP !== undefined) engineRequest.topP = request.topP;
  if (request.user !== undefined) engineRequest.user = request.user;
  const responseFormat = toEngineResponseFormat(request.textFormat);
  if (responseFormat !== undefined) engineRequest.responseFormat = responseFormat;
  if (request.logprobs !== undefined) engineRequest.logprobs = request.logprobs;
  if (request.reasoningEffort !== undefined) engineRequest.reasoningEffort = request.reasoningEffort;
  return engineRequest;
}
