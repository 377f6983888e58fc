import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import type { TokenLogprob } from '../../schemas/logprobs.js';
import type {
  OutputFunctionCallItem,
  OutputMessageItem,
  OutputReasoningItem,
  ResponseLogprob,
  ResponseOutputItem,
} from '../../schemas/responses/response-object.js';
import type { ResponseState } from './response-shell.js';
import type { GenerateResponseId } from './response-ids.js';
import { toResponseUsage } from './response-usage.js';
import { TextPieces } from './text-pieces.js';

/**
 * What happens to the output as engine events arrive; the stream encoder writes each as its
 * events (the string returned), the JSON path writes nothing. `outputIndex` is the item's place
 * in `output`. Strings returned, not pushed to a buffer: a delta, the hot path, is one frame.
 */
export interface ResponseOutputSink {
  itemAdded(item: ResponseOutputItem, outputIndex: number): string;
  reasoningDelta(item: OutputReasoningItem, outputIndex: number, text: string): string;
  textDelta(item: OutputMessageItem, outputIndex: number, text: string, logprobs: readonly TokenLogprob[] | undefined): string;
  argumentsDelta(item: OutputFunctionCallItem, outputIndex: number, text: string): string;
  itemDone(item: ResponseOutputItem, outputIndex: number): string;
}

export interface ResponseOutputOptions {
  generateId: GenerateResponseId;
  /** Whether the model shows its reasoning (`quantum-reasoner`): else reasoning events are dropped. */
  showReasoning: boolean;
  /** Whether the request asked for log probabilities: else they are left out of the parts. */
  showLogprobs: boolean;
  sink?: ResponseOutputSink;
}

const nothing = () => '';
const noSink: ResponseOutputSink = { itemAdded: nothing, reasoningDelta: nothing, textDelta: nothing, argumentsDelta: nothing, itemDone: nothing };

/**
 * Builds a response's output items from engine events, in the order they come: a run of
 * reasoning is one `reasoning` item, a run of text one `message`, each tool call a
 * `function_call`. An item is closed when another kind starts (a model that reasons first, as
 * `quantum-reasoner` does, gets its reasoning item before the message); the function calls of
 * one turn stay open together, as an engine may interleave their fragments.
 */
export class ResponseOutput {
  readonly #items: ResponseOutputItem[] = [];
  readonly #options: ResponseOutputOptions;
  readonly #sink: ResponseOutputSink;
  #reasoning: OutputReasoningItem | undefined = undefined;
  #message: OutputMessageItem | undefined = undefined;
  /** The text of the open reasoning item and message, and the arguments of each open call, in pieces (see `TextPieces`). */
  #reasoningText = new TextPieces();
  #messageText = new TextPieces();
  readonly #callArguments = new Map<OutputFunctionCallItem, TextPieces>();
  /** Open function calls by the engine's index. */
  #calls = new Map<number, OutputFunctionCallItem>();
  /** Each item's place in `items`. */
  readonly #positions = new Map<ResponseOutputItem, number>();
  #finish: Extract<ChatEngineEvent, { type: 'finish' }> | undefined = undefined;

  constructor(options: ResponseOutputOptions) {
    this.#options = options;
    this.#sink = options.sink ?? noSink;
  }

  /** Takes one engine event, returning what the sink wrote of it; `finish` closes every open item. */
  observe(event: ChatEngineEvent): string {
    switch (event.type) {
      case 'reasoning':
        return this.#options.showReasoning && event.text !== '' ? this.#addReasoning(event.text) : '';
      case 'content':
        return event.text !== '' ? this.#addText(event.text, this.#options.showLogprobs ? event.logprobs : undefined) : '';
      case 'tool-call':
        return this.#addCallFragment(event.index, event.name, event.argumentsDelta);
      case 'finish':
        this.#finish = event;
        return this.#closeAll(this.#incompleteReason() === undefined ? 'completed' : 'incomplete');
    }
  }

  /** The output items so far, the open ones' text as it stands. */
  get items(): ResponseOutputItem[] {
    if (this.#reasoning !== undefined) this.#reasoning.summary[0]!.text = this.#reasoningText.text();
    if (this.#message !== undefined) this.#message.content[0]!.text = this.#messageText.text();
    for (const [call, pieces] of this.#callArguments) call.arguments = pieces.text();
    return this.#items;
  }

  /** Whether the engine's finish event arrived. */
  get finished(): boolean {
    return this.#finish !== undefined;
  }

  /** The state of a finished response: `incomplete` when cut by the token limit. */
  finalState(completedAt: number): ResponseState {
    const finish = this.#finish;
    if (finish === undefined) throw new Error('The response has not finished.');
    const incompleteReason = this.#incompleteReason();
    const usage = toResponseUsage(finish.usage);
    if (incompleteReason === undefined) return { status: 'completed', output: this.items, usage, completedAt };
    return { status: 'incomplete', output: this.items, usage, completedAt, incompleteReason };
  }

  /** Closes the open items as incomplete (the run failed), returning what the sink wrote. */
  abandon(): string {
    return this.#closeAll('incomplete');
  }

  /** The state of a response that failed part way: what was produced so far (call `abandon` first). */
  failedState(error: { code: string; message: string }, completedAt: number): ResponseState {
    this.#closeAll('incomplete');
    return { status: 'failed', output: this.items, usage: null, completedAt, error };
  }

  #incompleteReason(): 'max_output_tokens' | 'content_filter' | undefined {
    const reason: string | undefined = this.#finish?.reason;
    if (reason === 'length') return 'max_output_tokens';
    if (reason === 'content_filter') return 'content_filter';
    return undefined;
  }

  #addReasoning(text: string): string {
    let item = this.#reasoning;
    let opened = '';
    if (item === undefined) {
      opened = this.#closeAll('completed');
      item = { type: 'reasoning', id: this.#options.generateId('reasoning'), summary: [] };
      this.#reasoning = item;
      opened += this.#open(item);
      item.summary.push({ type: 'summary_text', text: '' });
      this.#reasoningText = new TextPieces();
    }
    this.#reasoningText.add(text);
    return opened + this.#sink.reasoningDelta(item, this.#items.length - 1, text);
  }

  #addText(text: string, logprobs: readonly TokenLogprob[] | undefined): string {
    let item = this.#message;
    let opened = '';
    if (item === undefined) {
      opened = this.#closeAll('completed');
      item = { type: 'message', id: this.#options.generateId('message'), status: 'in_progress', role: 'assistant', content: [] };
      this.#message = item;
      opened += this.#open(item);
      item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
      this.#messageText = new TextPieces();
    }
    this.#messageText.add(text);
    if (logprobs !== undefined) for (const entry of logprobs) item.content[0]!.logprobs.push(entry as ResponseLogprob);
    return opened + this.#sink.textDelta(item, this.#items.length - 1, text, logprobs);
  }

  #addCallFragment(index: number, name: string | undefined, argumentsDelta: string): string {
    let item = this.#calls.get(index);
    let opened = '';
    if (item === undefined) {
      if (this.#reasoning !== undefined || this.#message !== undefined) opened = this.#closeAll('completed');
      item = {
        type: 'function_call',
        id: this.#options.generateId('function-call'),
        call_id: this.#options.generateId('call'),
        name: name ?? '',
        arguments: '',
        status: 'in_progress',
      };
      this.#calls.set(index, item);
      this.#callArguments.set(item, new TextPieces());
      opened += this.#open(item);
    }
    if (argumentsDelta === '') return opened;
    this.#callArguments.get(item)!.add(argumentsDelta);
    return opened + this.#sink.argumentsDelta(item, this.#positions.get(item)!, argumentsDelta);
  }

  #open(item: ResponseOutputItem): string {
    this.#positions.set(item, this.#items.length);
    this.#items.push(item);
    return this.#sink.itemAdded(item, this.#items.length - 1);
  }

  #closeAll(status: 'completed' | 'incomplete'): string {
    let written = '';
    const reasoning = this.#reasoning;
    if (reasoning !== undefined) {
      this.#reasoning = undefined;
      reasoning.summary[0]!.text = this.#reasoningText.text();
      written += this.#close(reasoning, status);
    }
    const message = this.#message;
    if (message !== undefined) {
      this.#message = undefined;
      message.content[0]!.text = this.#messageText.text();
      written += this.#close(message, status);
    }
    if (this.#calls.size > 0) {
      for (const call of this.#calls.values()) {
        call.arguments = this.#callArguments.get(call)!.text();
        this.#callArguments.delete(call);
        written += this.#close(call, status);
      }
      this.#calls = new Map();
    }
    return written;
  }

  #close(item: ResponseOutputItem, status: 'completed' | 'incomplete'): string {
    item.status = status;
    return this.#sink.itemDone(item, this.#positions.get(item)!);
  }
}
