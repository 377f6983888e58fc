import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { analyzeMessage, focusText } from './analyze-message.js';
import { applyStopSequences } from './apply-stop-sequences.js';
import { buildToolArguments } from './build-tool-arguments.js';
import { composeAnswer } from './compose-answer.js';
import { composeReasoning, type PlannedToolCall } from './compose-reasoning.js';
import { composeStructuredAnswer } from './compose-structured-answer.js';
import { composeToolResultAnswer } from './compose-tool-result-answer.js';
import { countPromptTokens } from './count-prompt-tokens.js';
import { readConversation } from './read-conversation.js';
import { createSeedSource } from './seeded-random.js';
import { selectTools } from './select-tools.js';
import { scoreTokens } from './token-logprobs.js';
import { countTextTokens, toWellFormed } from './tokenizer.js';
import { truncateToTokenBudget, type PieceSize } from './truncate-to-token-budget.js';

type FinishReason = Extract<ChatEngineEvent, { type: 'finish' }>['reason'];

/*
 * Only the fields decisions §8 names feed the wording; `maxTokens` is left out on purpose,
 * so a capped answer is always a prefix of the uncapped one.
 */
function wordingSeed(request: ChatEngineRequest): string {
  const { model, messages, tools, toolChoice, seed, temperature } = request;
  return JSON.stringify([model, messages, tools, toolChoice, seed ?? null, temperature]);
}

/** The deterministic answer when a selected tool's arguments do not fit the generation budget. */
function tooLargeAnswer(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`).join(', ');
  return names.length === 1
    ? `I did not call the tool ${quoted}: the arguments its schema requires are too large for the reference engine.`
    : `I did not call the tools ${quoted}: the arguments their schemas require are too large for the reference engine.`;
}

function planToolCalls(calls: readonly PlannedToolCall[], budget: number, pieceSize: PieceSize) {
  const events: ChatEngineEvent[] = [];
  let tokens = 0;
  for (const [index, call] of calls.entries()) {
    const nameTokens = countTextTokens(call.name);
    if (tokens + nameTokens > budget) return { events, tokens, truncated: true };
    tokens += nameTokens;
    const cut = truncateToTokenBudget(call.arguments, budget - tokens, pieceSize);
    tokens += cut.tokens;
    events.push({ type: 'tool-call', index, name: call.name, argumentsDelta: '' });
    for (const piece of cut.pieces) events.push({ type: 'tool-call', index, argumentsDelta: piece.text });
    if (cut.truncated) return { events, tokens, truncated: true };
  }
  return { events, tokens, truncated: false };
}

/**
 * Everything the reference engine yields for a request, computed up front: a pure function
 * of the request, so the same request gives the same events, streamed or not. With
 * `pieceSize` `whole` (for a client that waits for the answer) each text comes as one event
 * instead of one per token: the same texts, counts and finish.
 *
 * Order: reasoning pieces (when `request.reasoning`), then either tool-call fragments or
 * content pieces, then `finish`. `maxTokens` caps reasoning + content (+ tool names and
 * arguments) together; reasoning is spent first. Stop sequences cut the answer text only.
 *
 * @example
 * planResponse(request).at(-1); // { type: 'finish', reason: 'stop', usage: { … } }
 * @internal
 */
export function planResponse(request: ChatEngineRequest, pieceSize: PieceSize = 'token'): ChatEngineEvent[] {
  const conversation = readConversation(request.messages);
  const analysis = analyzeMessage(conversation.lastUserText);
  const seed = createSeedSource(wordingSeed(request));
  const cold = request.temperature === 0;
  const endsWithToolResult = conversation.toolResults.length > 0;
  const focus = focusText(conversation.lastUserText);
  const selected = selectTools(request, focus, endsWithToolResult).map((tool) => ({
    name: tool.function.name,
    arguments: buildToolArguments(tool, focus),
  }));
  // A tool whose arguments do not fit the generation budget is not called; we say so in text.
  const tooLarge = selected.filter((call) => call.arguments === undefined).map((call) => call.name);
  const calls: PlannedToolCall[] =
    tooLarge.length > 0 ? [] : selected.map((call) => ({ name: call.name, arguments: call.arguments ?? '{}' }));

  const budget = Number.isFinite(request.maxTokens) ? Math.max(0, Math.floor(request.maxTokens)) : Number.POSITIVE_INFINITY;
  const events: ChatEngineEvent[] = [];
  const reasoningText = request.reasoning
    ? composeReasoning(request, conversation, analysis, calls, seed.derive('|reasoning', { cold }))
    : '';
  const reasoning = truncateToTokenBudget(toWellFormed(reasoningText), budget, pieceSize);
  for (const piece of reasoning.pieces) events.push({ type: 'reasoning', text: piece.text });

  let outputTokens = 0;
  let reason: FinishReason;
  if (reasoning.truncated) {
    reason = 'length';
  } else if (calls.length > 0) {
    const planned = planToolCalls(calls, budget - reasoning.tokens, pieceSize);
    for (const event of planned.events) events.push(event);
    outputTokens = planned.tokens;
    reason = planned.truncated ? 'length' : 'tool_calls';
  } else {
    const random = seed.derive('|answer', { cold });
    const format = request.responseFormat;
    const plainAnswer = () =>
      tooLarge.length > 0
        ? tooLargeAnswer(tooLarge)
        : endsWithToolResult
          ? composeToolResultAnswer(request, conversation, random)
          : composeAnswer(request, conversation, analysis, random);
    // A schema's value does not need the text answer; `json_object` wraps it.
    const answer = format === undefined ? plainAnswer() : composeStructuredAnswer(format, format.type === 'json_object' ? plainAnswer() : '', focus);
    // Log probabilities are per token, so they need the answer in token pieces.
    const contentPieces = request.logprobs ? 'token' : pieceSize;
    const content = truncateToTokenBudget(applyStopSequences(toWellFormed(answer), request.stop).text, budget - reasoning.tokens, contentPieces);
    const scores = request.logprobs && scoreTokens(content.pieces.map((piece) => piece.text), seed, request.logprobs.topLogprobs, cold);
    content.pieces.forEach((piece, index) => {
      events.push(scores ? { type: 'content', text: piece.text, logprobs: [scores[index]!] } : { type: 'content', text: piece.text });
    });
    outputTokens = content.tokens;
    reason = content.truncated ? 'length' : 'stop';
  }

  events.push({
    type: 'finish',
    reason,
    usage: {
      promptTokens: countPromptTokens(request),
      completionTokens: reasoning.tokens + outputTokens,
      reasoningTokens: reasoning.tokens,
    },
  });
  return events;
}
