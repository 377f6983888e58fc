import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import type { TokenLogprob } from '../../schemas/logprobs.js';
import type {
  OutputFunctionCallItem,
  OutputMessageItem,
  OutputReasoningItem,
  ResponseObject,
  ResponseOutputItem,
} from '../../schemas/responses/response-object.js';
import { encodeSseEvent } from '../../sse/encode-sse-event.js';
import { ResponseOutput, type ResponseOutputSink } from '../../run/responses/response-output.js';
import type { ResponseShell } from '../../run/responses/response-shell.js';
import type { GenerateResponseId } from '../../run/responses/response-ids.js';

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

/**
 * One frame: the event's name on its `event:` line, and the JSON whose `type` names it again.
 * `body` is the JSON without its closing brace; the sequence number goes last, so that the
 * constant head of an item's deltas is built once (see `itemHeads`).
 */
function frame(type: string, body: string, sequence: number): string {
  return encodeSseEvent({ event: type, data: body + ',"sequence_number":' + sequence + '}' });
}

/** The JSON heads of the events about one item: its id and index never change, so they are written once. */
function itemHeads(item: ResponseOutputItem, outputIndex: number) {
  const where = `"item_id":${JSON.stringify(item.id)},"output_index":${outputIndex}`;
  return {
    textDelta: `{"type":"response.output_text.delta",${where},"content_index":0,"delta":`,
    reasoningDelta: `{"type":"response.reasoning_summary_text.delta",${where},"summary_index":0,"delta":`,
    argumentsDelta: `{"type":"response.function_call_arguments.delta",${where},"delta":`,
    where,
  };
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
  let pending = '';
  const heads = new Map<ResponseOutputItem, ReturnType<typeof itemHeads>>();
  const emptyLogprobs = ',"logprobs":[]';

  function push(type: string, body: string): void {
    pending += frame(type, body, sequence++);
  }
  function take(): string {
    const out = pending;
    pending = '';
    return out;
  }
  function responseEvent(type: string, response: ResponseObject): void {
    push(type, `{"type":"${type}","response":${JSON.stringify(response)}`);
  }
  /** What an `added` event shows of an item: its fields, the text still empty. */
  function openedItem(item: ResponseOutputItem): ResponseOutputItem {
    if (item.type === 'message') return { ...item, content: [] };
    if (item.type === 'reasoning') return { ...item, summary: [] };
    return { ...item, arguments: '' };
  }

  const sink: ResponseOutputSink = {
    itemAdded(item, outputIndex) {
      const head = itemHeads(item, outputIndex);
      heads.set(item, head);
      push('response.output_item.added', `{"type":"response.output_item.added","output_index":${outputIndex},"item":${JSON.stringify(openedItem(item))}`);
      if (item.type === 'message') {
        push('response.content_part.added', `{"type":"response.content_part.added",${head.where},"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`);
      } else if (item.type === 'reasoning') {
        push('response.reasoning_summary_part.added', `{"type":"response.reasoning_summary_part.added",${head.where},"summary_index":0,"part":{"type":"summary_text","text":""}`);
      }
    },
    reasoningDelta(item: OutputReasoningItem, _outputIndex, text) {
      pending += frame('response.reasoning_summary_text.delta', heads.get(item)!.reasoningDelta + JSON.stringify(text), sequence++);
    },
    textDelta(item: OutputMessageItem, _outputIndex, text, logprobs: readonly TokenLogprob[] | undefined) {
      const probabilities = logprobs === undefined ? emptyLogprobs : `,"logprobs":${JSON.stringify(logprobs)}`;
      pending += frame('response.output_text.delta', heads.get(item)!.textDelta + JSON.stringify(text) + probabilities, sequence++);
    },
    argumentsDelta(item: OutputFunctionCallItem, _outputIndex, text) {
      pending += frame('response.function_call_arguments.delta', heads.get(item)!.argumentsDelta + JSON.stringify(text), sequence++);
    },
    itemDone(item, outputIndex) {
      const { where } = heads.get(item)!;
      if (item.type === 'message') {
        const part = item.content[0]!;
        const text = JSON.stringify(part.text);
        const logprobs = JSON.stringify(part.logprobs);
        push('response.output_text.done', `{"type":"response.output_text.done",${where},"content_index":0,"text":${text},"logprobs":${logprobs}`);
        push('response.content_part.done', `{"type":"response.content_part.done",${where},"content_index":0,"part":${JSON.stringify(part)}`);
      } else if (item.type === 'reasoning') {
        const part = item.summary[0]!;
        push('response.reasoning_summary_text.done', `{"type":"response.reasoning_summary_text.done",${where},"summary_index":0,"text":${JSON.stringify(part.text)}`);
        push('response.reasoning_summary_part.done', `{"type":"response.reasoning_summary_part.done",${where},"summary_index":0,"part":${JSON.stringify(part)}`);
      } else {
        push('response.function_call_arguments.done', `{"type":"response.function_call_arguments.done",${where},"name":${JSON.stringify(item.name)},"arguments":${JSON.stringify(item.arguments)}`);
      }
      push('response.output_item.done', `{"type":"response.output_item.done","output_index":${outputIndex},"item":${JSON.stringify(item)}`);
      heads.delete(item);
    },
  };
  const output = new ResponseOutput({ generateId: options.generateId, showReasoning: options.showReasoning, showLogprobs: options.showLogprobs, sink });
  let final: ResponseObject | undefined;

  return {
    /** `response.created` and `response.in_progress`: the first bytes of the stream. */
    start(): string {
      const opening = shell.build({ status: 'in_progress', output: [], usage: null });
      responseEvent('response.created', opening);
      responseEvent('response.in_progress', opening);
      return take();
    },
    /** The events of one engine event ('' for none); `finish` closes the items and ends the response. */
    encode(event: ChatEngineEvent): string {
      output.observe(event);
      if (event.type === 'finish') {
        final = shell.build(output.finalState(now()));
        responseEvent(final.status === 'completed' ? 'response.completed' : 'response.incomplete', final);
      }
      return take();
    },
    /**
     * A failure after the first byte: an `error` event (what a client raises), then
     * `response.failed` with the output so far, so that a replayed stream ends with the
     * response's last state too.
     */
    fail(error: ResponseStreamError): string {
      const body = `{"type":"error","code":${JSON.stringify(error.code)},"message":${JSON.stringify(error.message)},"param":${JSON.stringify(error.param)}`;
      final = shell.build(output.failedState({ code: error.code, message: error.message }, now()));
      push('error', body);
      responseEvent('response.failed', final);
      return take();
    },
    /** The response as it ended (after `finish` or `fail`), for the store; undefined before. */
    response(): ResponseObject | undefined {
      return final;
    },
    /** The number of events encoded so far: the next event's `sequence_number`. */
    sequenceNumber(): number {
      return sequence;
    },
  };
}

export type ResponseEventEncoder = ReturnType<typeof createResponseEventEncoder>;
