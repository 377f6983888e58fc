import type { ChatEngineRequest } from '@quantum-chat/core';
import type { MessageAnalysis } from './analyze-message.js';
import { clip, formatList, plural } from './format-text.js';
import type { Conversation } from './read-conversation.js';
import type { SeededRandom } from './seeded-random.js';

/** A planned tool call: the tool's name and its JSON arguments. @internal */
export interface PlannedToolCall {
  name: string;
  arguments: string;
}

function describeToolChoice(request: ChatEngineRequest): string {
  const choice = request.toolChoice;
  return typeof choice === 'object' ? `the named tool ${choice.function.name}` : `"${choice}"`;
}

function describePlan(request: ChatEngineRequest, conversation: Conversation, analysis: MessageAnalysis, calls: readonly PlannedToolCall[]): string[] {
  if (conversation.toolResults.length > 0) {
    const names = [...new Set(conversation.toolResults.map((result) => result.name ?? 'a tool'))];
    return [`The last message is the result of ${formatList(names, false)}, so I will summarise it for the user instead of calling another tool.`];
  }
  if (calls.length > 0) {
    const steps = calls.map((call) => `${call.name} with ${clip(call.arguments, 120)}`);
    const why =
      typeof request.toolChoice === 'object' ? 'The request names the tool to use' :
      request.toolChoice === 'required' && calls.length === 1 ? 'A tool call is required, and this is the best fit' :
      'The message asks for something a tool offers';
    return [`${why}, so I will call ${formatList(steps, false)}.`, 'I will answer once the tool results come back.'];
  }
  const lines: string[] = [];
  if (analysis.arithmetic) {
    lines.push(`The message contains the expression ${analysis.arithmetic.expression}; evaluating it with the usual precedence gives ${analysis.arithmetic.result}.`);
  }
  if (analysis.keywords.length > 0) lines.push(`The key terms are ${formatList(analysis.keywords.slice(0, 3))}.`);
  lines.push(
    analysis.isQuestion
      ? 'It is a question, so I will answer it directly from what the conversation contains.'
      : 'It is a statement, so I will acknowledge it and offer to continue.',
  );
  lines.push(`Plan: quote the request, ${analysis.arithmetic ? 'give the result, ' : ''}name the key terms, and say that a deterministic engine wrote the reply.`);
  return lines;
}

/**
 * The reasoning trace for `quantum-reasoner`: it walks through what was asked, the
 * conversation, the tools on offer and the tool choice, then what the engine will do (call a
 * tool, summarise a tool result, or answer). One step per line.
 *
 * @example
 * composeReasoning(request, conversation, analysis, [], random);
 * // 'The user asked: "What is 2+2?" (3 words).\nThe conversation has 1 message.\n…'
 * @internal
 */
export function composeReasoning(
  request: ChatEngineRequest,
  conversation: Conversation,
  analysis: MessageAnalysis,
  calls: readonly PlannedToolCall[],
  random: SeededRandom,
): string {
  const lines: string[] = [];
  lines.push(
    analysis.text === ''
      ? 'There is no user message, so I will explain what I can do.'
      : `${random.pick(['The user asked', 'The request is', 'The user wrote'])}: "${analysis.quote}" (${plural(analysis.wordCount, 'word')}).`,
  );
  lines.push(`The conversation has ${plural(conversation.messageCount, 'message')}${conversation.systemPrompt ? ', including a system prompt' : ''}.`);
  if (request.tools.length === 0) {
    lines.push('No tools are available, so I will answer in text.');
  } else {
    const names = formatList(request.tools.slice(0, 8).map((tool) => tool.function.name), false);
    lines.push(`Available tools: ${names}; the tool choice is ${describeToolChoice(request)}.`);
  }
  lines.push(...describePlan(request, conversation, analysis, calls));
  return lines.join('\n');
}
