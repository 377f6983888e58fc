import { maxTokensCeiling, maxTopLogprobs, type ChatCompletionRequest } from '../schemas/chat-completion-request.js';

/** The top-level fields of a chat request without messages, as the schema returns them. */
export type RequestFields = Omit<ChatCompletionRequest, 'messages'>;

const isBoolean = (value: unknown) => typeof value === 'boolean';
const isTokenCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= maxTokensCeiling;
const isString = (value: unknown) => typeof value === 'string';
const isStop = (value: unknown) => typeof value === 'string' || (Array.isArray(value) && value.length <= 4 && value.every(isString));
const isPenalty = (value: unknown) => typeof value === 'number' && value >= -2 && value <= 2;
/** An object as `JSON.parse` makes one (an object literal's prototype, not an array or a class instance). */
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
const plainFormats = new Set(['text', 'json_object']);
/** `{"type":"text"}` or `{"type":"json_object"}` and nothing else: what most clients send. */
const isPlainResponseFormat = (value: unknown) => {
  if (!isPlainObject(value)) return false;
  let keys = 0;
  for (const _key in value) keys++;
  return keys === 1 && plainFormats.has(value.type as string);
};

const streamOptionFlags = new Set(['include_usage', 'resumable']);
const isFlag = (value: unknown) => value === undefined || value === null || typeof value === 'boolean';
/**
 * `{"include_usage": true}` and `{"resumable": true}`, what a streaming client sends (the
 * `openai` SDK on every stream), and nothing else: its flags, each a boolean or null.
 */
const isPlainStreamOptions = (value: unknown) => {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!streamOptionFlags.has(key) || !isFlag(value[key])) return false;
  return true;
};

/**
 * The scalar fields nearly every request sends, each checked exactly as the request schema
 * checks it, and the two small objects most clients send (a plain response format, the stream
 * options). Other objects (`tools`, `tool_choice`, `metadata`, `logit_bias`, a `json_schema`
 * format) are not here: they take the schema.
 */
const scalarChecks: ReadonlyMap<string, (value: unknown) => boolean> = new Map(Object.entries({
  model: isString,
  messages: () => true,
  stream: isBoolean,
  temperature: (value) => typeof value === 'number' && value >= 0 && value <= 2,
  max_tokens: isTokenCount,
  max_completion_tokens: isTokenCount,
  top_p: (value) => typeof value === 'number' && value >= 0 && value <= 1,
  stop: isStop,
  seed: (value) => Number.isSafeInteger(value),
  user: (value) => typeof value === 'string' && value.length <= 256,
  // zod 4 reads `.int()` as a safe integer.
  n: (value) => Number.isSafeInteger(value),
  parallel_tool_calls: isBoolean,
  logprobs: isBoolean,
  top_logprobs: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= maxTopLogprobs,
  presence_penalty: isPenalty,
  frequency_penalty: isPenalty,
  reasoning_effort: (value) => value === 'low' || value === 'medium' || value === 'high',
  response_format: isPlainResponseFormat,
  stream_options: isPlainStreamOptions,
}));

/**
 * The request's top-level fields when they are all scalars that pass their checks, read
 * without zod; `undefined` for anything else, which the schema then parses (and so words
 * every error). The schema parse was a sixth of a short request's CPU time. `known` holds
 * known fields only, `null`s already dropped; `messages` is checked elsewhere.
 */
export function readPlainRequestFields(known: Record<string, unknown>): RequestFields | undefined {
  for (const key in known) {
    const check = scalarChecks.get(key);
    if (check === undefined || !check(known[key])) return undefined;
  }
  return known as RequestFields;
}
