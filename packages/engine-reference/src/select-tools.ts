import type { ChatEngineRequest } from '@quantum-chat/core';
import { extractKeywords, splitWords } from './extract-keywords.js';

/** A function tool definition as it arrives in a request. @internal */
export type ToolDefinition = ChatEngineRequest['tools'][number];

/** At most this many parallel calls, however many tools match. */
const maxParallelCalls = 8;

/*
 * Verbs and nouns so common in tool names and descriptions that matching on them would
 * call a tool for almost any message ("get", "data", "information").
 */
const genericWords = new Set(
  (
    'get set fetch list create update make run call tool tools api func function handle execute perform ' +
    'retrieve find query lookup return returns given specified provided based data info information ' +
    'value values result results current user specific'
  ).split(' '),
);

/**
 * A word and its possible singulars, lowercase: "cases" → cases, case, cas. Matching on any
 * shared form is cruder than stemming and good enough for tool names.
 */
function forms(word: string): string[] {
  const lower = word.toLowerCase();
  if (lower.length <= 3) return [lower];
  const result = [lower];
  if (lower.endsWith('ies')) result.push(`${lower.slice(0, -3)}y`);
  if (lower.endsWith('es')) result.push(lower.slice(0, -2));
  if (lower.endsWith('s') && !lower.endsWith('ss')) result.push(lower.slice(0, -1));
  return result;
}

const sharesForm = (word: string, pool: ReadonlySet<string>): boolean => forms(word).some((form) => pool.has(form));

/** `get_current-weatherNow` → `get current weather now`. */
function namePhrase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .replace(/[_-]+/gu, ' ')
    .trim()
    .toLowerCase();
}

/**
 * How well a tool fits a message; 0 means it does not. The whole name as a phrase ("get
 * weather" for `get_weather`) scores 10, each significant word of the name 3, each
 * significant word of the description 1. A tool matches on its name phrase, on one
 * significant name word, or on two significant description words.
 *
 * @example
 * scoreTool({ type: 'function', function: { name: 'get_weather' } }, 'Weather in Paris?'); // 3
 * @internal
 */
export function scoreTool(tool: ToolDefinition, text: string): number {
  const messageWords = splitWords(text);
  if (messageWords.length === 0) return 0;
  const messageForms = new Set(messageWords.flatMap(forms));
  const phrase = namePhrase(tool.function.name);
  const phraseScore = ` ${messageWords.join(' ').toLowerCase()} `.includes(` ${phrase} `) ? 10 : 0;
  const nameWords = [...new Set(phrase.split(' ').filter((part) => part.length >= 3 && !genericWords.has(part)))];
  const nameScore = nameWords.filter((part) => sharesForm(part, messageForms)).length * 3;
  const nameForms = new Set(nameWords.flatMap(forms));
  const descriptionHits = [...new Set(extractKeywords(tool.function.description ?? '').map((word) => word.toLowerCase()))]
    .filter((word) => !genericWords.has(word) && !sharesForm(word, nameForms) && sharesForm(word, messageForms)).length;
  if (phraseScore === 0 && nameScore === 0 && descriptionHits < 2) return 0;
  return phraseScore + nameScore + descriptionHits;
}

/**
 * The tools the reference engine calls for a request, best match first; empty means it
 * answers in text. `none` (or no tools) never calls; a named choice calls that tool;
 * `required` calls the matching tools, else the first tool; `auto` calls the matching
 * tools only. With `parallelToolCalls` every matching tool is called (up to 8), otherwise
 * only the best. Once the conversation ends in a tool result the engine answers instead,
 * whatever the choice, so an agent loop with `required` cannot spin forever.
 *
 * @example
 * selectTools(request, 'What is the weather in Paris?', false); // [getWeatherTool]
 * @internal
 */
export function selectTools(request: ChatEngineRequest, text: string, endsWithToolResult: boolean): ToolDefinition[] {
  const { tools, toolChoice } = request;
  if (tools.length === 0 || toolChoice === 'none' || endsWithToolResult) return [];
  if (typeof toolChoice === 'object') {
    const named = tools.find((tool) => tool.function.name === toolChoice.function.name);
    return named ? [named] : [];
  }
  const matches = tools
    .map((tool, index) => ({ tool, index, score: scoreTool(tool, text) }))
    .filter((match) => match.score > 0)
    .sort((left, right) => right.score - left.score || left.index - right.index)
    .map((match) => match.tool)
    .slice(0, request.parallelToolCalls ? maxParallelCalls : 1);
  if (toolChoice === 'required' && matches.length === 0) return tools.slice(0, 1);
  return matches;
}
