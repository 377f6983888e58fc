import type { UpstreamChunk } from './upstream-chunk-schema.js';

// A hand-written check of the fields the mapper reads, for every upstream chunk: the zod schema
// (`upstreamChunkSchema`) costs several microseconds and allocates a copy of each chunk. It
// never accepts what the schema refuses; the caller runs the schema on anything it refuses, so
// a refused chunk gets exactly the schema's verdict and nothing is lost.

type Loose = Record<string, unknown>;

/** What `z.looseObject` accepts: an object that is not an array. */
function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullishOr(value: unknown, type: 'string' | 'number'): boolean {
  // `z.number()` refuses NaN and ±Infinity (JSON has neither, but a custom fetch might).
  return value == null || (typeof value === type && (type === 'string' || Number.isFinite(value)));
}

/** What `z.record(z.string(), z.unknown())` accepts: a plain object (JSON objects always are). */
function isPlainJsonObject(value: unknown): boolean {
  if (!isObject(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `toolCallDeltaSchema` of the core. */
function isToolCallDelta(value: unknown): boolean {
  if (!isObject(value)) return false;
  const index = value.index;
  if (index != null && !(typeof index === 'number' && Number.isSafeInteger(index) && index >= 0)) return false;
  if (!isNullishOr(value.id, 'string')) return false;
  if (value.type != null && value.type !== 'function') return false;
  const fn = value.function;
  if (fn == null) return true;
  if (!isObject(fn) || !isNullishOr(fn.name, 'string')) return false;
  const args = fn.arguments;
  return args == null || typeof args === 'string' || isPlainJsonObject(args);
}

/** `upstreamDeltaSchema`. */
function isDelta(value: unknown): boolean {
  if (value == null) return true;
  if (!isObject(value)) return false;
  if (!isNullishOr(value.content, 'string') || !isNullishOr(value.reasoning_content, 'string') || !isNullishOr(value.reasoning, 'string')) return false;
  const toolCalls = value.tool_calls;
  if (toolCalls == null) return true;
  if (!Array.isArray(toolCalls)) return false;
  for (const call of toolCalls) if (!isToolCallDelta(call)) return false;
  return true;
}

/** `upstreamUsageSchema`. */
function isUsage(value: unknown): boolean {
  if (value == null) return true;
  if (!isObject(value)) return false;
  if (!isNullishOr(value.prompt_tokens, 'number') || !isNullishOr(value.completion_tokens, 'number')) return false;
  const details = value.completion_tokens_details;
  return details == null || (isObject(details) && isNullishOr(details.reasoning_tokens, 'number'));
}

/**
 * True when `value` passes `upstreamChunkSchema` (and is then used as is, uncopied). False means
 * "not proven": run the schema for the verdict and its issues.
 *
 * @example
 * isUpstreamChunk({ choices: [{ delta: { content: 'Hi' } }] }); // true
 * isUpstreamChunk({ choices: 'nope' }); // false
 */
export function isUpstreamChunk(value: unknown): value is UpstreamChunk {
  if (!isObject(value)) return false;
  const choices = value.choices;
  if (choices != null) {
    if (!Array.isArray(choices)) return false;
    for (const choice of choices) {
      if (!isObject(choice)) return false;
      if (!isNullishOr(choice.finish_reason, 'string') || !isDelta(choice.delta) || !isDelta(choice.message)) return false;
    }
  }
  return isUsage(value.usage);
}
