import { countPromptAtOnceBelow, type ChatEngineRequest, type EngineMessage, type PromptMeasure } from '@quantum-chat/core';
import { countTextTokens, isHighSurrogate, isLowSurrogate } from './tokenizer.js';

/** Framing tokens around every message (the `<|start|>role…<|end|>` of a chat template). */
const tokensPerMessage = 3;
/** Framing tokens around every tool call in an assistant message. */
const tokensPerToolCall = 3;
/** Tokens that prime the assistant's reply. */
const replyPriming = 3;

/**
 * Counts by request object: the handler counts a request's prompt for its admission and the
 * engine again for its usage, and a 1 MiB prompt costs a tenth of a second each time.
 */
const counted = new WeakMap<object, number>();

/** Texts longer than this are counted a slice at a time (see `sliceForCounting`). */
const sliceLength = 16_384;
/** A slice ends at a space between two words within this many characters before its nominal end. */
const cutWindow = 1024;

const whitespace = /\s/u;

/**
 * `text` in slices of about 16 K characters, for counting one at a time. A slice ends before a
 * single space between two non-space characters, where o200k's pre-tokenizer always starts a
 * new chunk (no chunk ends in a space unless it is all whitespace) and no long run of one
 * character class is cut: the slices' counts add up to the whole text's exactly. Text with no
 * such space for a thousand characters (one long run, CJK without spaces) is cut at the slice
 * length, between code points; `splitForEncoding` cuts such runs anyway. Every prompt count
 * goes through here, at once or in turns, so both give the same figure.
 * @internal
 */
function sliceForCounting(text: string): string[] {
  if (text.length <= sliceLength) return [text];
  const slices: string[] = [];
  let start = 0;
  while (text.length - start > sliceLength) {
    const end = start + sliceLength;
    let cut = -1;
    for (let at = end; at > end - cutWindow; at--) {
      if (text.charCodeAt(at) === 32 && !whitespace.test(text[at - 1]!) && !whitespace.test(text[at + 1]!)) {
        cut = at;
        break;
      }
    }
    if (cut === -1) cut = isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
    slices.push(text.slice(start, cut));
    start = cut;
  }
  slices.push(text.slice(start));
  return slices;
}

/** What one prompt is counted from: framing tokens (numbers) and texts. */
function* promptParts(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): Generator<number | string> {
  yield replyPriming;
  for (const message of request.messages) yield* messageParts(message);
  if (request.tools.length > 0) yield JSON.stringify(request.tools);
}

function* messageParts(message: EngineMessage): Generator<number | string> {
  yield tokensPerMessage;
  yield message.role;
  yield message.content ?? '';
  if ('name' in message && message.name) {
    yield 1;
    yield message.name;
  }
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      yield tokensPerToolCall;
      yield call.function.name;
      yield call.function.arguments;
    }
  }
}

/**
 * Prompt tokens of a request under o200k_base with a simple chat framing, the one the
 * OpenAI cookbook describes: per message 3 + tokens(role) + tokens(content) (+ 1 +
 * tokens(name) when named; + 3 + tokens(name) + tokens(arguments) per assistant tool
 * call), plus tokens(JSON.stringify(tools)) when there are tools, plus 3 to prime the reply.
 * A tool message's `toolCallId` and an assistant message's earlier `reasoning` are not
 * counted (they are not shown to a model as text). Long texts are counted in slices (see
 * `sliceForCounting`); `countPromptTokensAsync` gives the same figure without holding the
 * event loop for long.
 *
 * @example
 * countPromptTokens({ ...request, messages: [{ role: 'user', content: 'Hello' }], tools: [] }); // 3 + 1 + 1 + 3 = 8
 */
export function countPromptTokens(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): number {
  const known = counted.get(request);
  if (known !== undefined) return known;
  let tokens = 0;
  for (const part of promptParts(request)) {
    if (typeof part === 'number') tokens += part;
    else for (const slice of sliceForCounting(part)) tokens += countTextTokens(slice);
  }
  counted.set(request, tokens);
  return tokens;
}

/** Resolves on a later turn of the event loop (after pending I/O), in any runtime. */
function nextTurn(): Promise<void> {
  const { setImmediate } = globalThis as { setImmediate?: (callback: () => void) => unknown };
  return new Promise((resolve) => (setImmediate !== undefined ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

/**
 * The same count as `countPromptTokens`, a slice of about 16 K characters per turn of the
 * event loop, so that a 1 MiB prompt never holds it for the tenth of a second (and more, on a
 * busy machine) that counting it at once takes. Remembered per request object, like the other.
 *
 * @example
 * await countPromptTokensAsync(request); // then countPromptTokens(request) is free
 */
export async function countPromptTokensAsync(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): Promise<number> {
  const known = counted.get(request);
  if (known !== undefined) return known;
  let tokens = 0;
  let sinceTurn = 0;
  for (const part of promptParts(request)) {
    if (typeof part === 'number') {
      tokens += part;
      continue;
    }
    for (const slice of sliceForCounting(part)) {
      if (sinceTurn >= sliceLength) {
        await nextTurn();
        sinceTurn = 0;
      }
      tokens += countTextTokens(slice);
      sinceTurn += slice.length;
    }
  }
  counted.set(request, tokens);
  return tokens;
}

/** UTF-8 bytes of `text` (a lone surrogate is U+FFFD, three bytes), without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 2; // four bytes for the two units
      index++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * A bound the prompt's token count never exceeds, in a millisecond for a megabyte: no o200k
 * token is shorter than one UTF-8 byte, so the framing plus the bytes of each text bounds the
 * count. About four times the count for English. For reserving quota before counting: the
 * exact count is only needed when this bound alone would refuse the request.
 *
 * @example
 * estimatePromptTokens({ ...request, messages: [{ role: 'user', content: 'Hello' }], tools: [] }); // 3 + 4 + 5 + 3 = 15
 */
export function estimatePromptTokens(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): number {
  const known = counted.get(request);
  if (known !== undefined) return known;
  let bound = 0;
  for (const part of promptParts(request)) bound += typeof part === 'number' ? part : utf8Length(part);
  return bound;
}

/**
 * The engine's measure of a prompt: `estimatePromptTokens` as the bound, and the count of
 * `countPromptTokens` on call, in turns (`countPromptTokensAsync`) past a bound of
 * `countPromptAtOnceBelow`, unless it was counted already.
 *
 * @example
 * const { bound, count } = measurePrompt(request);
 * const tokens = await count!(); // never above bound
 */
export function measurePrompt(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): PromptMeasure {
  const bound = estimatePromptTokens(request);
  return {
    bound,
    count: () => counted.get(request) ?? (bound > countPromptAtOnceBelow ? countPromptTokensAsync(request) : countPromptTokens(request)),
  };
}

/** UTF-16 units of a prompt's texts: past one slice, the engine counts it in turns. @internal */
export function promptLength(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): number {
  let length = 0;
  for (const message of request.messages) length += message.content?.length ?? 0;
  return length;
}

/** @internal */
export { sliceLength as countingSliceLength };
