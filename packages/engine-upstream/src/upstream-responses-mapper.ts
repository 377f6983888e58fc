import { QuantumChatError } from '@quantum-chat/core';
import type { SseEvent } from '@quantum-chat/core/sse';
import { parseResponseEvent, readErrorPayload, readTokenLogprobs, type ResponseStreamEvent, type WireUsage } from '@quantum-chat/core/dialect';
import { AnswerRelay } from './answer-relay.js';
import { streamedFailure, type UpstreamChunkMapper, type UpstreamChunkMapperOptions } from './upstream-chunk-mapper.js';

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

/** What the mapper knows of one output item (by `output_index`). */
interface ItemState {
  /** Characters of text (or arguments) the stream brought for it so far: a `.done` event relays only what lies beyond. */
  seen: number;
  /** A function call: its position among our tool calls, name and arguments so far. */
  call?: { index: number; name: string | undefined; arguments: string };
}

/** Error codes of the Responses API that say the same as an HTTP status, so they map alike (a 429 is retried elsewhere). */
const statusOfCode: Record<string, number> = { rate_limit_exceeded: 429, server_error: 500, vector_store_timeout: 504 };

/** An `error` event or a failed response: the fault chat's error frames give (see `streamedFailure`). */
function failureOf(error: unknown): QuantumChatError {
  const read = readErrorPayload({ error: isObject(error) ? error : { message: 'the response failed without saying why' } })!;
  const status = read.status ?? (read.code === null ? undefined : statusOfCode[read.code]);
  return streamedFailure({ ...read, status });
}

/** A Responses `usage` under the chat wire's names, so it is checked as chat's is. */
function toWireUsage(usage: unknown): WireUsage | undefined {
  if (!isObject(usage)) return undefined;
  const input = usage.input_tokens_details;
  const output = usage.output_tokens_details;
  return {
    prompt_tokens: usage.input_tokens as number | undefined,
    completion_tokens: usage.output_tokens as number | undefined,
    total_tokens: usage.total_tokens as number | undefined,
    ...(isObject(input) ? { prompt_tokens_details: { cached_tokens: input.cached_tokens } } : {}),
    ...(isObject(output) ? { completion_tokens_details: { reasoning_tokens: output.reasoning_tokens as number | undefined } } : {}),
  };
}

const malformed = (problem: string) => new QuantumChatError('upstream_error', `The model server sent ${problem}.`);

/** The text of an item's parts of the given types, joined. */
function partsText(parts: unknown, types: readonly string[]): string {
  if (!Array.isArray(parts)) return '';
  let text = '';
  for (const part of parts) if (isObject(part) && types.includes(part.type as string) && typeof part.text === 'string') text += part.text;
  return text;
}

/**
 * Maps the event stream of a runtime's `/v1/responses` (vLLM, Ollama, OpenAI) to the engine
 * events the chat wire gives, through the same relay bounds (`AnswerRelay`): output text as
 * content (with its log probabilities), reasoning from summary or reasoning-text deltas, each
 * `function_call` item as a tool call whose first event carries its name, `finish` from
 * `response.completed` or `response.incomplete` (`max_output_tokens` is `length`) with the
 * final response's usage, checked as chat's is. `error` and `response.failed` throw the fault
 * chat's error frames throw. A `.done` event relays only text its deltas did not bring (a
 * runtime that sends no deltas is still read whole).
 *
 * @example
 * const mapper = createUpstreamResponsesMapper({ showReasoning: true, countTokens, countPromptTokens: () => 0, maxTokens: 4096 });
 * mapper.read({ event: 'response.output_text.delta', data: '{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"Hi"}', id: undefined }); // [{ type: 'content', text: 'Hi' }]
 */
export function createUpstreamResponsesMapper(options: UpstreamChunkMapperOptions): UpstreamChunkMapper {
  const relay = new AnswerRelay(options);
  const maxArguments = options.maxToolArgumentsLength ?? Number.POSITIVE_INFINITY;
  const items = new Map<number, ItemState>();
  let toolCalls = 0;
  let hasStarted = false;
  /** The finish reason of the terminal event, once it came. */
  let finishReason: 'stop' | 'length' | undefined;
  let usage: WireUsage | undefined;

  function itemAt(outputIndex: unknown): ItemState {
    const index = typeof outputIndex === 'number' ? outputIndex : -1;
    let item = items.get(index);
    if (item === undefined) {
      item = { seen: 0 };
      items.set(index, item);
    }
    return item;
  }

  function callOf(item: ItemState, name: unknown): NonNullable<ItemState['call']> {
    item.call ??= { index: toolCalls++, name: undefined, arguments: '' };
    if (item.call.name === undefined && typeof name === 'string' && name !== '') item.call.name = name;
    return item.call;
  }

  /** Relays `delta` of the call's arguments (and its name, once known); past the arguments cap the answer is an upstream fault. */
  function argumentsDelta(item: ItemState, name: unknown, delta: string): void {
    hasStarted = true;
    const call = callOf(item, name);
    call.arguments += delta;
    item.seen += delta.length;
    if (call.arguments.length > maxArguments) throw malformed(`a tool call whose arguments are longer than ${maxArguments} characters`);
    relay.toolCall(call.index, call.name, call.arguments, delta);
  }

  function text(item: ItemState, delta: string, logprobs?: unknown): void {
    hasStarted = true;
    item.seen += delta.length;
    const event = relay.content(delta);
    if (event === undefined || !Array.isArray(logprobs) || logprobs.length === 0) return;
    const entries = relay.logprobs(readTokenLogprobs({ content: logprobs })!);
    if (entries.length > 0) event.logprobs = entries;
  }

  function reasoning(item: ItemState, delta: string): void {
    hasStarted = true;
    item.seen += delta.length;
    relay.reasoning(delta);
  }

  /** What a `.done` event or a whole item holds beyond what its deltas brought. */
  const rest = (item: ItemState, whole: string): string => (whole.length > item.seen ? whole.slice(item.seen) : '');

  /** An item as a whole (`output_item.done`, or an output of a JSON answer): its text that no delta brought. */
  function wholeItem(item: ItemState, value: unknown): void {
    if (!isObject(value)) throw malformed('an output item that is not an object');
    if (value.type === 'function_call') {
      const call = callOf(item, value.name);
      const remainder = rest(item, stringOr(value.arguments, ''));
      if (remainder !== '' || !relay.announced(call.index)) argumentsDelta(item, value.name, remainder);
    } else if (value.type === 'message') {
      const remainder = rest(item, partsText(value.content, ['output_text', 'refusal']));
      if (remainder !== '') text(item, remainder);
    } else if (value.type === 'reasoning') {
      const remainder = rest(item, partsText(value.summary, ['summary_text']) + partsText(value.content, ['reasoning_text']));
      if (remainder !== '') reasoning(item, remainder);
    }
  }

  function terminal(response: unknown, incomplete: boolean): void {
    const body = isObject(response) ? response : {};
    usage = toWireUsage(body.usage);
    const reason = isObject(body.incomplete_details) ? body.incomplete_details.reason : undefined;
    finishReason = incomplete && reason === 'max_output_tokens' ? 'length' : 'stop';
  }

  function apply(event: ResponseStreamEvent): void {
    const loose = event as unknown as Loose;
    switch (event.type) {
      case 'response.output_item.added': {
        const item = itemAt(event.output_index);
        if (isObject(event.item) && event.item.type === 'function_call') {
          const delta = stringOr(event.item.arguments, '');
          argumentsDelta(item, event.item.name, delta);
        }
        return;
      }
      case 'response.output_text.delta':
        text(itemAt(event.output_index), stringOr(event.delta, ''), event.logprobs);
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        reasoning(itemAt(event.output_index), stringOr(event.delta, ''));
        return;
      case 'response.function_call_arguments.delta':
        argumentsDelta(itemAt(event.output_index), undefined, stringOr(event.delta, ''));
        return;
      case 'response.function_call_arguments.done': {
        const item = itemAt(event.output_index);
        argumentsDelta(item, event.name, rest(item, stringOr(event.arguments, '')));
        return;
      }
      case 'response.output_item.done':
        wholeItem(itemAt(event.output_index), event.item);
        return;
      case 'response.completed':
      case 'response.incomplete':
        terminal(event.response, event.type === 'response.incomplete');
        return;
      case 'response.failed':
        throw failureOf(isObject(event.response) ? event.response.error : undefined);
      case 'error':
        throw failureOf(event);
      default:
        // A refusal is the answer's text, as chat relays it; other events (created, in_progress, part and text `.done`s, annotations) carry nothing new.
        if (loose.type === 'response.refusal.delta') text(itemAt(loose.output_index), stringOr(loose.delta, ''));
    }
  }

  function parse(data: string): ResponseStreamEvent {
    try {
      return parseResponseEvent(data);
    } catch (error) {
      throw malformed(`an event that is not a Responses event (${(error as Error).message.slice(0, 120)})`);
    }
  }

  return {
    read(event: SseEvent) {
      // Once the answer is cut, nothing more is relayed: the caller stops reading.
      if (finishReason === undefined) apply(parse(event.data));
      return relay.take();
    },
    readWhole(value) {
      const error = readErrorPayload(value);
      if (error !== undefined) throw streamedFailure(error);
      if (!isObject(value) || !Array.isArray(value.output)) throw malformed('JSON that is not a response');
      if (value.status === 'failed') throw failureOf(value.error);
      value.output.forEach((output, index) => wholeItem(itemAt(index), output));
      terminal(value, value.status === 'incomplete');
      return relay.take();
    },
    end() {
      // Calls whose name never came are announced with an empty one (not once the answer was cut: they may be past the cut).
      const unnamed = relay.cut ? [] : [...items.values()].flatMap((item) => (item.call !== undefined && !relay.announced(item.call.index) ? [item.call] : []));
      for (const call of unnamed.sort((left, right) => left.index - right.index)) if (!relay.unnamedCall(call.index, call.arguments)) break;
      relay.push(relay.finish(finishReason, usage));
      return relay.take();
    },
    done: () => finishReason !== undefined,
    started: () => hasStarted || finishReason !== undefined,
    finished: () => finishReason !== undefined,
    cut: () => relay.cut,
  };
}
