import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import type { TokenLogprob } from '../../schemas/logprobs.js';
import type {
  OutputFunctionCallItem,
  OutputMessageItem,
  OutputReasoningItem,
  ResponseObject,
  ResponseOutputItem,
} from '../../schemas/responses/response-object.js';
import { ResponseOutput, type ResponseOutputSink } from './response-output.js';
import type { ResponseShell, ResponseState } from './response-shell.js';
import type { GenerateResponseId } from './response-ids.js';
import { jsonEventHead, sequencedTail } from '../../wire/responses/json-event-frame.js';
import { outputItemJson } from '../../wire/responses/response-body-json.js';

export interface ResponseEventEncoderOptions {
  generateId: GenerateResponseId;
  /** Whether the model shows its reasoning (`quantum-reasoner`). */
  showReasoning: boolean;
  /** Whether the request asked for log probabilities. */
  showLogprobs: boolean;
  /** The clock, in seconds since the epoch, for `completed_at`. */
  now?: () => number;
}

/** An error as the `error` event and a failed response carry it. */
export interface ResponseStreamError {
  code: string;
  message: string;
  param: string | null;
}

const eventTypes = [
  'response.created',
  'response.in_progress',
  'response.completed',
  'response.incomplete',
  'response.failed',
  'response.output_item.added',
  'response.output_item.done',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.delta',
  'response.output_text.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'error',
] as const;
type EventType = (typeof eventTypes)[number];

/** Each event's frame head and the start of its JSON (`{"type":"…"`), built once for the process. */
const heads = Object.fromEntries(eventTypes.map((type) => [type, `${jsonEventHead(type)}{"type":"${type}"`])) as Record<EventType, string>;

/** The constant heads of the delta events of one item: its id and index never change. */
interface ItemHeads {
  /** `"item_id":…,"output_index":…` */
  where: string;
  delta: string;
}

function deltaHead(item: ResponseOutputItem, where: string): string {
  if (item.type === 'message') return `${heads['response.output_text.delta']},${where},"content_index":0,"delta":`;
  if (item.type === 'reasoning') return `${heads['response.reasoning_summary_text.delta']},${where},"summary_index":0,"delta":`;
  return `${heads['response.function_call_arguments.delta']},${where},"delta":`;
}

const sequenceKey = ',"sequence_number":';
const noLogprobsThenSequence = `,"logprobs":[]${sequenceKey}`;

/** What an `added` event shows of an item: its fields, its text still empty. */
function openedItem(item: ResponseOutputItem): ResponseOutputItem {
  if (item.type === 'message') return { ...item, content: [] };
  if (item.type === 'reasoning') return { ...item, summary: [] };
  return { ...item, arguments: '' };
}

/**
 * The stream encoder of the Responses API (decisions §10): fed the engine events the chat
 * stream encoder is fed, it returns the named SSE events of each, in the order the `openai`
 * SDK's `ResponseStream` and the AI SDK read them, each with its `type` and `sequence_number`.
 * No `[DONE]`: the terminal `response.*` event ends the stream.
 */
export function createResponseEventEncoder(shell: ResponseShell, options: ResponseEventEncoderOptions) {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  let sequence = 0;
  const itemHeads = new Map<ResponseOutputItem, ItemHeads>();
  // The item the last delta went to: a run of deltas skips the map.
  let lastItem: ResponseOutputItem | undefined;
  let lastDelta = '';

  /** One frame: the event's head, the rest of its JSON (`body`, no closing brace), its sequence number. */
  function frame(type: EventType, body: string): string {
    return heads[type] + body + sequencedTail(sequence++);
  }
  /** The JSON of each closed item, in output order: every later response repeats them as written. */
  const closedItems: string[] = [];
  function responseFrame(type: EventType, state: ResponseState): string {
    return frame(type, `,"response":${shell.json(state, closedItems)}`);
  }
  /** A delta's frame: the item's constant head, the JSON of the text, what follows it, the sequence number. */
  function deltaFrame(item: ResponseOutputItem, json: string, after: string): string {
    if (item !== lastItem) {
      lastItem = item;
      lastDelta = itemHeads.get(item)!.delta;
    }
    return lastDelta + json + after + sequence++ + '}\n\n';
  }

  const sink: ResponseOutputSink = {
    itemAdded(item, outputIndex) {
      const where = `"item_id":${JSON.stringify(item.id)},"output_index":${outputIndex}`;
      itemHeads.set(item, { where, delta: deltaHead(item, where) });
      const added = frame('response.output_item.added', `,"output_index":${outputIndex},"item":${outputItemJson(openedItem(item))}`);
      if (item.type === 'message') {
        return added + frame('response.content_part.added', `,${where},"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`);
      }
      if (item.type === 'reasoning') return added + frame('response.reasoning_summary_part.added', `,${where},"summary_index":0,"part":{"type":"summary_text","text":""}`);
      return added;
    },
    reasoningDelta(item: OutputReasoningItem, _outputIndex, text) {
      return deltaFrame(item, JSON.stringify(text), sequenceKey);
    },
    textDelta(item: OutputMessageItem, _outputIndex, text, logprobs: readonly TokenLogprob[] | undefined) {
      if (logprobs === undefined) return deltaFrame(item, JSON.stringify(text), noLogprobsThenSequence);
      return deltaFrame(item, JSON.stringify(text), `,"logprobs":${JSON.stringify(logprobs)}${sequenceKey}`);
    },
    argumentsDelta(item: OutputFunctionCallItem, _outputIndex, text) {
      return deltaFrame(item, JSON.stringify(text), sequenceKey);
    },
    itemDone(item, outputIndex) {
      const { where } = itemHeads.get(item)!;
      itemHeads.delete(item);
      // The item's text is serialised once and placed in all three events that repeat it.
      let frames: string;
      let itemJson: string;
      if (item.type === 'message') {
        const part = item.content[0]!;
        const text = JSON.stringify(part.text);
        const logprobs = part.logprobs.length === 0 ? '[]' : JSON.stringify(part.logprobs);
        const partJson = `{"type":"output_text","text":${text},"annotations":[],"logprobs":${logprobs}}`;
        itemJson = `{"type":"message","id":${JSON.stringify(item.id)},"status":"${item.status}","role":"assistant","content":[${partJson}]}`;
        frames =
          frame('response.output_text.done', `,${where},"content_index":0,"text":${text},"logprobs":${logprobs}`) +
          frame('response.content_part.done', `,${where},"content_index":0,"part":${partJson}`);
      } else if (item.type === 'reasoning') {
        const part = item.summary[0]!;
        const text = JSON.stringify(part.text);
        const partJson = `{"type":"summary_text","text":${text}}`;
        itemJson = `{"type":"reasoning","id":${JSON.stringify(item.id)},"summary":[${partJson}],"status":"${item.status!}"}`;
        frames =
          frame('response.reasoning_summary_text.done', `,${where},"summary_index":0,"text":${text}`) +
          frame('response.reasoning_summary_part.done', `,${where},"summary_index":0,"part":${partJson}`);
      } else {
        itemJson = JSON.stringify(item);
        frames = frame('response.function_call_arguments.done', `,${where},"name":${JSON.stringify(item.name)},"arguments":${JSON.stringify(item.arguments)}`);
      }
      closedItems[outputIndex] = itemJson;
      return frames + frame('response.output_item.done', `,"output_index":${outputIndex},"item":${itemJson}`);
    },
  };
  const output = new ResponseOutput({ generateId: options.generateId, showReasoning: options.showReasoning, showLogprobs: options.showLogprobs, sink });
  // The state it ended in; the `Response` object is built only if asked for (a stored response):
  // a stream's bytes never need it.
  let finalState: ResponseState | undefined;
  let final: ResponseObject | undefined;

  return {
    /** `response.created` and `response.in_progress`: the first bytes of the stream. */
    start(): string {
      // One serialisation for both: the response is the same at both moments.
      const opening = `,"response":${shell.json({ status: 'in_progress', output: [], usage: null }, closedItems)}`;
      return frame('response.created', opening) + frame('response.in_progress', opening);
    },
    /** The events of one engine event ('' for none); `finish` closes the items and ends the response. */
    encode(event: ChatEngineEvent): string {
      const frames = output.observe(event);
      if (event.type !== 'finish') return frames;
      const state = output.finalState(now());
      finalState = state;
      return frames + responseFrame(state.status === 'completed' ? 'response.completed' : 'response.incomplete', state);
    },
    /**
     * A failure after the first byte: the open items closed as incomplete, an `error` event (what
     * a client raises), then `response.failed` with the output so far, so that a replayed stream
     * ends with the response's last state too.
     */
    fail(error: ResponseStreamError): string {
      const closed = output.abandon();
      const state = output.failedState({ code: error.code, message: error.message }, now());
      finalState = state;
      const reported = frame('error', `,"code":${JSON.stringify(error.code)},"message":${JSON.stringify(error.message)},"param":${JSON.stringify(error.param)}`);
      return closed + reported + responseFrame('response.failed', state);
    },
    /**
     * The output items so far, their text as it stands: a run that stops early settles its usage
     * from them (as chat's progress counts its text) without keeping a second copy of the text.
     */
    items(): readonly ResponseOutputItem[] {
      return output.items;
    },
    /** The response as it ended (after `finish` or `fail`), for the store; undefined before. */
    response(): ResponseObject | undefined {
      if (final === undefined && finalState !== undefined) final = shell.build(finalState);
      return final;
    },
    /** Whether the response ended (after `finish` or `fail`). */
    ended(): boolean {
      return finalState !== undefined;
    },
    /** The number of events encoded so far: the next event's `sequence_number`. */
    sequenceNumber(): number {
      return sequence;
    },
  };
}

export type ResponseEventEncoder = ReturnType<typeof createResponseEventEncoder>;
