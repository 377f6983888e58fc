import type { ChatEngineRequest } from '@quantum-chat/core';
import type { MessageAnalysis } from './analyze-message.js';
import { clip, formatList, plural, quoted } from './format-text.js';
import type { Conversation } from './read-conversation.js';
import type { SeededRandom } from './seeded-random.js';

function composeEmptyAnswer(model: string): string {
  return [
    'I did not find a user message to answer, so here is what I can do.',
    `I am ${model}, a deterministic reference engine: I read the conversation and answer from it, the same way every time.`,
    'Send me a question, a sum such as "what is 12 * 7", or a request that matches one of your tools, and I will respond to it.',
    'That makes me useful for development and tests, where a predictable reply matters more than a clever one.',
  ].join(' ');
}

/**
 * The text answer to an open request: several sentences that quote the last user message,
 * answer any arithmetic in it, name its key words, count its words, and say plainly that a
 * deterministic engine wrote them. The wording varies with `random` (seed and temperature)
 * but the facts do not. Usually 60–150 tokens.
 *
 * @example
 * composeAnswer(request, conversation, analyzeMessage('What is 2+2?'), random);
 * // 'You asked: "What is 2+2?" The answer is 4: 2 + 2 = 4. …'
 * @internal
 */
export function composeAnswer(
  request: ChatEngineRequest,
  conversation: Conversation,
  analysis: MessageAnalysis,
  random: SeededRandom,
): string {
  if (analysis.text === '') return composeEmptyAnswer(request.model);
  const sentences: string[] = [];
  const { quote, arithmetic, keywords } = analysis;
  if (analysis.isGreeting) sentences.push(quoted(random.pick(['Hello! Thanks for your message', 'Hi there, and thanks for writing']), quote));
  else if (analysis.isQuestion) sentences.push(quoted(random.pick(['You asked:', 'Your question was', 'Here is my answer to']), quote));
  else sentences.push(quoted(random.pick(['You wrote:', 'Thanks for your message,', 'I read your message']), quote));

  if (arithmetic && arithmetic.result === 'undefined') {
    sentences.push(`${arithmetic.expression} has no defined value, because it divides by zero.`);
  } else if (arithmetic) {
    const { expression, result } = arithmetic;
    sentences.push(random.pick([`The answer is ${result}: ${expression} = ${result}.`, `${expression} equals ${result}.`, `Working it out, ${expression} = ${result}.`]));
    sentences.push('I evaluated the expression exactly as written, with the usual operator precedence.');
  }

  const topics = keywords.slice(0, 3);
  if (topics.length > 0) {
    const list = formatList(topics);
    sentences.push(
      random.pick([
        `The key ${topics.length === 1 ? 'word I picked out is' : 'words I picked out are'} ${list}.`,
        `Your message is mainly about ${list}.`,
      ]),
    );
  }
  sentences.push(
    random.pick([
      `Your message has ${plural(analysis.wordCount, 'word')} and ${plural(analysis.characterCount, 'character')}.`,
      `It is ${plural(analysis.wordCount, 'word')} long (${plural(analysis.characterCount, 'character')}).`,
    ]),
  );
  if (analysis.isQuestion && !arithmetic) {
    sentences.push(
      random.pick([
        'Since I do not look anything up, I can only answer from what the conversation itself contains.',
        'I cannot check facts or browse, so the best I can do is reflect the question back with what this conversation tells me.',
      ]),
    );
  } else if (!analysis.isQuestion) {
    sentences.push(random.pick(['I have noted it, and I can build on it in the next turn.', 'That is clear, and I will keep it in mind as we continue.']));
  }

  if (request.tools.length > 0) {
    const names = formatList(request.tools.slice(0, 4).map((tool) => tool.function.name), false);
    const toolWord = request.tools.length === 1 ? 'tool is' : 'tools are';
    sentences.push(
      request.toolChoice === 'none'
        ? `The ${toolWord} available (${names}), but tool calls are switched off for this request, so I answered directly.`
        : `The ${toolWord} available (${names}), but nothing in your message called for one, so I answered directly.`,
    );
  }
  if (conversation.userTurns > 1) {
    sentences.push(`This is turn ${conversation.userTurns} of our conversation, and my reply looks only at your latest message.`);
  }
  if (conversation.systemPrompt) {
    sentences.push(quoted('I am also following the system instructions, which begin', clip(conversation.systemPrompt, 60)));
  }
  sentences.push(
    random.pick([
      `I am ${request.model}, a deterministic reference engine rather than a language model, so the same request always gets exactly this reply.`,
      `As ${request.model}, the deterministic reference engine, I assemble this reply from your message instead of generating it with a language model.`,
    ]),
  );
  const [first] = topics;
  sentences.push(
    first
      ? random.pick([`Ask a follow-up if you want more about "${first}".`, `Let me know if you want to go further into "${first}".`])
      : 'Let me know what you would like to do next.',
  );
  return sentences.join(' ');
}
