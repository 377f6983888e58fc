import type { ChatEngineRequest } from '@quantum-chat/core';
import { clip, formatList, quoted } from './format-text.js';
import type { Conversation, ToolResult } from './read-conversation.js';
import type { SeededRandom } from './seeded-random.js';

const maxResultsShown = 4;
const maxEntriesShown = 5;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return clip(value, 60);
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (value !== null && typeof value === 'object') return clip(JSON.stringify(value), 60);
  return String(value);
}

/** `reports that temperature is 18 and condition is Cloudy` from `{"temperature":18,"condition":"Cloudy"}`. @internal */
function summarizeToolContent(content: string): string {
  const trimmed = content.trim();
  if (trimmed === '') return 'an empty result';
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return `"${clip(trimmed, 200)}"`;
  }
  if (Array.isArray(parsed)) {
    const first = parsed.length > 0 ? `, the first being ${describeValue(parsed[0])}` : '';
    return `a list of ${parsed.length} ${parsed.length === 1 ? 'item' : 'items'}${first}`;
  }
  if (parsed !== null && typeof parsed === 'object') {
    const entries = Object.entries(parsed).slice(0, maxEntriesShown);
    if (entries.length === 0) return 'an empty object';
    return `reports that ${formatList(entries.map(([key, value]) => `${key} is ${describeValue(value)}`), false)}`;
  }
  return describeValue(parsed);
}

function toolName(result: ToolResult): string {
  return result.name ?? 'the tool';
}

/**
 * The answer once the conversation ends in tool results: it names each tool, restates what
 * it returned (JSON objects as "key is value" pairs, other text quoted), and finishes with
 * `stop`. Parallel results are reported in order.
 *
 * @example
 * composeToolResultAnswer(request, conversation, random);
 * // 'I called get_weather for your request "Weather in Paris?" The get_weather tool returned: temperature is 18. …'
 * @internal
 */
export function composeToolResultAnswer(request: ChatEngineRequest, conversation: Conversation, random: SeededRandom): string {
  const results = conversation.toolResults;
  const names = [...new Set(results.map(toolName))];
  const sentences: string[] = [];
  const called = `I called ${formatList(names, false)}`;
  const requestText = clip(conversation.lastUserText, 80);
  sentences.push(requestText ? quoted(`${called} for your request`, requestText) : `${called}.`);
  for (const result of results.slice(0, maxResultsShown)) {
    const name = toolName(result);
    const subject = result.name ? `The ${name} tool` : 'The tool';
    const summary = summarizeToolContent(result.content);
    sentences.push(summary.startsWith('reports that') ? `${subject} ${summary}.` : random.pick([`${subject} returned ${summary}.`, `${subject} came back with ${summary}.`]));
  }
  if (results.length > maxResultsShown) sentences.push(`${results.length - maxResultsShown} more results came back as well.`);
  sentences.push(
    random.pick([
      'That is the information your request needed, taken directly from the tool output.',
      'I have passed the output along as it was, without adding anything of my own.',
    ]),
  );
  sentences.push(`If you need more, I can call ${names[0] ?? 'the tool'} again with different arguments.`);
  sentences.push(`(I am ${request.model}, a deterministic reference engine, so this summary is assembled from the tool output rather than written by a language model.)`);
  return sentences.join(' ');
}
