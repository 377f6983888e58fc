import { QuantumChatError, type ChatEngineEvent, type ChatEngineRequest } from '@quantum-chat/core';
import type { ChatHistoryItem, ChatModelFunctions, ChatWrapper, Llama, LlamaChat, LlamaChatResponseChunk, LlamaChatResponseFunctionCallParamsChunk, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import { createEventChannel } from './event-channel.js';
import { createResponseChunkMapper } from './response-chunk-mapper.js';
import { forcedOutput, forcedShape, type ForcedShape } from './output-grammar.js';
import { toChatHistory } from './to-chat-history.js';

/** What one generation needs of the loaded model. */
export interface LoadedModel {
  /** node-llama-cpp's class, from the module loaded at run time (the package imports it only when a model is served). */
  LlamaChat: typeof LlamaChat;
  llama: Llama;
  model: LlamaModel;
  chatWrapper: ChatWrapper;
}

/** The tools node-llama-cpp may let the model call on its own (`tool_choice: "auto"`). */
function availableFunctions(request: ChatEngineRequest): ChatModelFunctions | undefined {
  if (request.tools.length === 0 || request.toolChoice !== 'auto') return undefined;
  const functions: Record<string, ChatModelFunctions[string]> = {};
  for (const tool of request.tools) {
    functions[tool.function.name] = {
      ...(typeof tool.function.description === 'string' ? { description: tool.function.description } : {}),
      ...(tool.function.parameters !== undefined ? { params: tool.function.parameters as ChatModelFunctions[string]['params'] } : {}),
    };
  }
  return functions;
}

/**
 * The chat history of a request. A forced call is constrained by a grammar, not by
 * node-llama-cpp's function calling, so the model learns of the tools from a system note
 * (their names, descriptions and schemas) instead of the template's tool section.
 */
function historyFor(request: ChatEngineRequest, forced: ForcedShape): ChatHistoryItem[] {
  const history = toChatHistory(request.messages);
  if (forced.kind !== 'named-call' && forced.kind !== 'any-call') return history;
  const tools = forced.kind === 'named-call' ? request.tools.filter((tool) => tool.function.name === forced.name) : request.tools;
  const described = tools.map((tool) => `- ${tool.function.name}${typeof tool.function.description === 'string' ? `: ${tool.function.description}` : ''}\n  parameters: ${JSON.stringify(tool.function.parameters ?? {})}`);
  const note = `${forced.kind === 'named-call' ? `Answer with the JSON arguments of a call to ${forced.name}.` : 'Answer with one call: {"name": <tool>, "arguments": <its JSON arguments>}.'}\nTools:\n${described.join('\n')}`;
  const first = history[0];
  if (first?.type === 'system' && typeof first.text === 'string') history[0] = { type: 'system', text: `${first.text}\n\n${note}` };
  else history.unshift({ type: 'system', text: note });
  return history;
}

/** Counts by request: the handler counts a request's prompt before it asks for the answer, which counts it again for usage. */
const promptCounts = new WeakMap<LoadedModel, WeakMap<ChatEngineRequest, number>>();

/** Prompt tokens as the model's own tokenizer counts the prompt its chat template renders. */
export function countPrompt(loaded: LoadedModel, request: ChatEngineRequest): number {
  let counts = promptCounts.get(loaded);
  if (counts === undefined) promptCounts.set(loaded, (counts = new WeakMap()));
  const counted = counts.get(request);
  if (counted !== undefined) return counted;
  const count = renderAndCount(loaded, request);
  counts.set(request, count);
  return count;
}

function renderAndCount(loaded: LoadedModel, request: ChatEngineRequest): number {
  const forced = forcedShape(request);
  const functions = forced.kind === 'text' ? availableFunctions(request) : undefined;
  const { contextText } = loaded.chatWrapper.generateContextState({
    chatHistory: historyFor(request, forced),
    ...(functions !== undefined ? { availableFunctions: functions, documentFunctionParams: true } : {}),
  });
  return contextText.tokenize(loaded.model.tokenizer).length;
}

/**
 * One answer from a context sequence the caller holds: node-llama-cpp's callbacks become
 * engine events. The generator's `finally` stops the generation and waits for it, so the
 * sequence is idle again when the caller releases it.
 */
export async function* generateAnswer(loaded: LoadedModel, sequence: LlamaContextSequence, request: ChatEngineRequest, signal: AbortSignal): AsyncGenerator<ChatEngineEvent> {
  const forced = await forcedOutput(loaded.llama, request);
  const functions = forced.kind === 'text' ? availableFunctions(request) : undefined;
  const stop = new AbortController();
  const generationSignal = AbortSignal.any([signal, stop.signal]);
  const channel = createEventChannel<ChatEngineEvent>();
  const chat = new loaded.LlamaChat({ contextSequence: sequence, chatWrapper: loaded.chatWrapper });
  const outputBefore = sequence.tokenMeter.usedOutputTokens;
  const shape = forcedShape(request);
  const history = historyFor(request, shape);
  const promptTokens = countPrompt(loaded, request);
  // node-llama-cpp would shift the context and still fail, saying so in its own words.
  if (promptTokens >= sequence.contextSize) {
    chat.dispose({ disposeSequence: false });
    throw new QuantumChatError(
      'invalid_value',
      `The prompt is ${promptTokens} tokens (with the chat template${functions !== undefined ? ' and the tools' : ''}), more than this model's context of ${sequence.contextSize} tokens; shorten the conversation.`,
      { param: 'messages' },
    );
  }
  const mapper = createResponseChunkMapper({ showReasoning: request.reasoning, forced: shape });
  const push = (events: ChatEngineEvent[]) => {
    for (const event of events) channel.push(event);
  };
  const onResponseChunk = (chunk: LlamaChatResponseChunk) => push(mapper.read(chunk));
  const onFunctionCallParamsChunk = (chunk: LlamaChatResponseFunctionCallParamsChunk) => push(mapper.readCallParams(chunk));
  const common = {
    signal: generationSignal,
    maxTokens: request.maxTokens,
    temperature: request.temperature,
    ...(request.topP !== undefined ? { topP: request.topP } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.stop !== undefined && request.stop.length > 0 ? { customStopTriggers: request.stop } : {}),
    onResponseChunk,
  };
  const generation = chat
    .generateResponse(
      history,
      forced.kind !== 'text'
        ? { ...common, grammar: forced.grammar }
        : functions !== undefined
          ? { ...common, functions, documentFunctionParams: true, maxParallelFunctionCalls: request.parallelToolCalls ? undefined : 1, onFunctionCallParamsChunk }
          : common,
    )
    .then(
      (response) => {
        try {
          const completionTokens = sequence.tokenMeter.usedOutputTokens - outputBefore;
          const usage = { promptTokens, completionTokens, reasoningTokens: mapper.reasoningTokens };
          push(mapper.end());
          const calledTools = forced.kind === 'named-call' || forced.kind === 'any-call' || (response.functionCalls?.length ?? 0) > 0;
          const reason = response.metadata.stopReason === 'maxTokens' ? 'length' : calledTools ? 'tool_calls' : 'stop';
          channel.push({ type: 'finish', reason, usage });
          channel.close();
        } catch (error) {
          channel.close(error);
        }
      },
      (error: unknown) => channel.close(error),
    );
  try {
    yield* channel;
  } finally {
    stop.abort(new Error('The answer was left.'));
    await generation;
    chat.dispose({ disposeSequence: false });
  }
}
