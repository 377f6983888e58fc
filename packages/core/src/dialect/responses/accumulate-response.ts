import type { OutputMessageItem, OutputReasoningItem, ResponseObject, ResponseOutputItem } from '../../schemas/responses/response-object.js';
import type { ResponseStreamEvent } from '../../schemas/responses/response-stream-event.js';

/** A Responses stream that broke its own rules: an event about an item or part it never announced. */
export class ResponseStreamProtocolError extends Error {
  override readonly name = 'ResponseStreamProtocolError';
}

/** The error an `error` event or a failed response carried. */
export class ResponseStreamFailedError extends Error {
  override readonly name = 'ResponseStreamFailedError';
  readonly code: string | null;
  readonly param: string | null;
  constructor(message: string, code: string | null, param: string | null) {
    super(message);
    this.code = code;
    this.param = param;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** A reasoning item as some servers send it: with `content` parts of `reasoning_text` besides the summary. */
type ReasoningWithContent = OutputReasoningItem & { content?: { type: string; text: string }[] };

/**
 * Builds the final `Response` of a stream from its events, the way the `openai` SDK's
 * accumulator does: `response.created` starts the snapshot, the item and part events grow it,
 * and each `response.*` lifecycle event replaces it with the server's own (the last one is the
 * answer). Unknown event types are skipped: servers add them.
 */
export class ResponseAccumulator {
  #snapshot: Mutable<ResponseObject> | undefined = undefined;
  #error: ResponseStreamFailedError | undefined = undefined;

  /** The response so far (the final one once the stream ended). */
  get snapshot(): ResponseObject | undefined {
    return this.#snapshot;
  }

  /** The error an `error` event reported, if one did. */
  get error(): ResponseStreamFailedError | undefined {
    return this.#error;
  }

  apply(event: ResponseStreamEvent): void {
    if (event.type === 'error') {
      this.#error = new ResponseStreamFailedError(event.message, event.code, event.param);
      return;
    }
    const snapshot = this.#snapshot;
    if (snapshot === undefined) {
      if (event.type !== 'response.created' && event.type !== 'response.queued') {
        throw new ResponseStreamProtocolError(`The stream began with '${event.type}', not 'response.created'.`);
      }
      this.#snapshot = structuredClone(event.response);
      return;
    }
    switch (event.type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.#snapshot = structuredClone(event.response);
        return;
      case 'response.output_item.added':
        snapshot.output.push(structuredClone(event.item));
        return;
      case 'response.output_item.done':
        this.#item(event.output_index);
        snapshot.output[event.output_index] = structuredClone(event.item);
        return;
      case 'response.content_part.added': {
        const item = this.#item(event.output_index);
        if (item.type === 'message' && event.part.type === 'output_text') {
          item.content.push({ type: 'output_text', text: event.part.text ?? '', annotations: event.part.annotations ?? [], logprobs: event.part.logprobs ?? [] });
        } else if (item.type === 'reasoning' && event.part.type === 'reasoning_text') {
          ((item as ReasoningWithContent).content ??= []).push({ type: 'reasoning_text', text: event.part.text ?? '' });
        }
        return;
      }
      case 'response.output_text.delta': {
        const item = this.#item(event.output_index);
        if (item.type === 'message') this.#part(item, event.content_index).text += event.delta;
        return;
      }
      case 'response.output_text.done': {
        const item = this.#item(event.output_index);
        if (item.type === 'message') this.#part(item, event.content_index).text = event.text;
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const item = this.#item(event.output_index);
        if (item.type === 'reasoning') item.summary.push({ type: 'summary_text', text: event.part.text });
        return;
      }
      case 'response.reasoning_summary_text.delta': {
        const item = this.#item(event.output_index);
        if (item.type === 'reasoning') this.#summary(item, event.summary_index).text += event.delta;
        return;
      }
      case 'response.reasoning_summary_text.done': {
        const item = this.#item(event.output_index);
        if (item.type === 'reasoning') this.#summary(item, event.summary_index).text = event.text;
        return;
      }
      case 'response.reasoning_text.delta': {
        const item = this.#item(event.output_index);
        if (item.type === 'reasoning') this.#reasoningText(item, event.content_index).text += event.delta;
        return;
      }
      case 'response.function_call_arguments.delta': {
        const item = this.#item(event.output_index);
        if (item.type === 'function_call') item.arguments += event.delta;
        return;
      }
      case 'response.function_call_arguments.done': {
        const item = this.#item(event.output_index);
        if (item.type === 'function_call') item.arguments = event.arguments;
        return;
      }
      default:
        // The `.done` events of parts carry nothing the item's own `.done` does not.
        return;
    }
  }

  #item(index: number): ResponseOutputItem {
    const item = this.#snapshot!.output[index];
    if (item === undefined) throw new ResponseStreamProtocolError(`An event names output ${index}, which the stream never added.`);
    return item;
  }

  #part(item: OutputMessageItem, index: number) {
    // A server that skips `content_part.added` (some upstreams do) starts the next part with its first delta.
    if (index === item.content.length) item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    const part = item.content[index];
    if (part === undefined) throw new ResponseStreamProtocolError(`An event names content part ${index} of '${item.id}', which the stream never added.`);
    return part;
  }

  #summary(item: OutputReasoningItem, index: number) {
    if (index === item.summary.length) item.summary.push({ type: 'summary_text', text: '' });
    const part = item.summary[index];
    if (part === undefined) throw new ResponseStreamProtocolError(`An event names summary part ${index} of '${item.id}', which the stream never added.`);
    return part;
  }

  #reasoningText(item: ReasoningWithContent, index: number) {
    const content = (item.content ??= []);
    if (index === content.length) content.push({ type: 'reasoning_text', text: '' });
    const part = content[index];
    if (part === undefined) throw new ResponseStreamProtocolError(`An event names reasoning part ${index} of '${item.id}', which the stream never added.`);
    return part;
  }
}
