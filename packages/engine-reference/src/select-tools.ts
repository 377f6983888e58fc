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

/** Lowercase, with a plural `s` dropped, so "forecasts" meets "forecast". */
function stem(word: string): string {
  const lower = word.toLowerCase();
  return lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss') ? lower.slice(0, -1) : lower;
}

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
  const messageStems = new Set(splitWords(text).map(stem));
  if (messageStems.size === 0) return 0;
  const phrase = namePhrase(tool.function.name);
  const phraseScore = ` ${splitWords(text).join(' ').toLowerCase()} `.includes(` ${phrase} `) ? 10 : 0;
  const nameStems = new Set(phrase.split(' ').filter((part) => part.length >= 3 && !genericWords.has(part)).map(stem));
  const nameScore = [...nameStems].filter((part) => messageStems.has(part)).length * 3;
  const descriptionStems = new Set(
    extractKeywords(tool.function.description ?? '')
      .filter((word) => !genericWords.has(word.toLowerCase()))
      .map(stem),
  );
  const descriptionHits = [...descriptionStems].filter((word) => messageStems.has(word) && !nameStems.has(word)).length;
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
