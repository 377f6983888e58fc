import * as fc from 'fast-check';
import type { ResponseObject, ResponseStreamEvent } from '@quantum-chat/core/dialect';
import { describe, expect, it } from 'vitest';
import { QuantumChatApiError } from '../errors/api-error.js';
import { APIConnectionError, APIResponseValidationError, APIUserAbortError } from '../errors/connection-errors.js';
import { createAttemptController } from '../http/attempt-controller.js';
import type { ApiResponse } from '../http/send-request.js';
import { createResponseStream, type ResponseStreamResumer } from './response-stream.js';

const encoder = new TextEncoder();

const shell: ResponseObject = {
  id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', completed_at: null, error: null, incomplete_details: null, instructions: null,
  max_output_tokens: null, model: 'quantum-reasoner', output: [], parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null },
  store: true, temperature: 1, text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [], top_p: 1, background: false, truncation: 'disabled', usage: null, user: null, metadata: {},
};
const reasoning = { type: 'reasoning' as const, id: 'rs_1', summary: [{ type: 'summary_text' as const, text: 'Think: 2+2' }] };
const message = { type: 'message' as const, id: 'msg_1', status: 'completed' as const, role: 'assistant' as const, content: [{ type: 'output_text' as const, text: 'Four — «4».', annotations: [], logprobs: [] }] };
const completed: ResponseObject = { ...shell, status: 'completed', completed_at: 2, output: [reasoning, message], usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 8 } };

/** A reasoner's answer as our server streams it: reasoning summary first, then the message, multibyte text on purpose. */
const events: ResponseStreamEvent[] = (
  [
    { type: 'response.created', response: shell },
    { type: 'response.in_progress', response: shell },
    { type: 'response.output_item.added', output_index: 0, item: { ...reasoning, summary: [] } },
    { type: 'response.reasoning_summary_part.added', item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
    { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Think: ' },
    { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: '2+2' },
    { type: 'response.reasoning_summary_text.done', item_id: 'rs_1', output_index: 0, summary_index: 0, text: 'Think: 2+2' },
    { type: 'response.output_item.done', output_index: 0, item: reasoning },
    { type: 'response.output_item.added', output_index: 1, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Four — ' },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: '«4».' },
    { type: 'response.output_text.done', item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Four — «4».' },
    { type: 'response.output_item.done', output_index: 1, item: message },
    { type: 'response.completed', response: completed },
  ] as Record<string, unknown>[]
).map((event, index) => ({ ...event, sequence_number: index + 1 }) as unknown as ResponseStreamEvent);

/** The same events of a `background: true` response, which runs on without its reader. */
const backgroundEvents = events.map((event) => ('response' in event ? { ...event, response: { ...event.response, background: true } } : event)) as ResponseStreamEvent[];

const wire = (list: ResponseStreamEvent[]) => list.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');

/** A response whose body arrives in the given byte pieces, then ends (or fails with `fail`). */
function opened(pieces: Uint8Array[], signal: AbortSignal, fail?: Error): ApiResponse {
  const queue = [...pieces];
  // Pull-based: an error raised at once would discard the pieces still queued.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = queue.shift();
      if (piece !== undefined) controller.enqueue(piece);
      else if (fail === undefined) controller.close();
      else controller.error(fail);
    },
  });
  const headers = { 'content-type': 'text/event-stream', 'x-request-id': 'req_test' };
  return { response: new Response(body, { headers }), headers, attempt: createAttemptController(signal, 0) };
}

function cut(bytes: Uint8Array, positions: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const position of positions) {
    pieces.push(bytes.slice(start, position));
    start = position;
  }
  pieces.push(bytes.slice(start));
  return pieces;
}

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const seen: ResponseStreamEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe('createResponseStream', () => {
  it('hands out every event in order and builds the final Response, however the bytes are cut', async () => {
    const bytes = encoder.encode(wire(events));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (positions) => {
        const stream = createResponseStream(async (signal) => opened(cut(bytes, positions.sort((a, b) => a - b)), signal));
        expect(await collect(stream)).toEqual(events);
        expect(await stream.finalResponse()).toEqual(completed);
        expect(stream.responseId).toBe('resp_1');
        expect(stream.lastSequenceNumber).toBe(events.length);
        expect(stream.requestId).toBe('req_test');
      }),
      { numRuns: 40 },
    );
  });

  it('re-opens a dropped background stream after the last whole event, without gap or repeat (the replay overlaps)', async () => {
    const events = backgroundEvents;
    const bytes = encoder.encode(wire(events));
    const cutAt = encoder.encode(wire(events.slice(0, 6))).length + 20; // inside event 7
    const asked: (number | undefined)[] = [];
    const reports: string[] = [];
    const resumer: ResponseStreamResumer = {
      maxAttempts: 3,
      sleep: async () => undefined,
      onResume: (event) => reports.push(`${event.state} ${event.streamId} ${event.attempt}`),
      // Replays from two events earlier than asked: the stream skips what it has seen.
      open: async (responseId, startingAfter, signal) => {
        asked.push(startingAfter);
        expect(responseId).toBe('resp_1');
        return opened([encoder.encode(wire(events.slice((startingAfter ?? 0) - 2)))], signal);
      },
    };
    const stream = createResponseStream(async (signal) => opened([bytes.slice(0, cutAt)], signal, new TypeError('terminated')), undefined, resumer);
    expect(await collect(stream)).toEqual(events);
    expect(asked).toEqual([6]);
    expect(reports).toEqual(['reconnecting resp_1 1', 'resumed resp_1 1']);
    expect(await stream.finalResponse()).toEqual({ ...completed, background: true });
  });

  it('does not re-open a dropped foreground stream: the server stopped it when its reader left', async () => {
    let reopened = 0;
    const resumer: ResponseStreamResumer = { maxAttempts: 3, sleep: async () => undefined, open: async () => (reopened++, Promise.reject(new Error('not called'))) };
    const cutAt = encoder.encode(wire(events.slice(0, 6))).length + 20;
    const stream = createResponseStream(async (signal) => opened([encoder.encode(wire(events)).slice(0, cutAt)], signal, new TypeError('terminated')), undefined, resumer);
    await expect(collect(stream)).rejects.toBeInstanceOf(APIConnectionError);
    expect(reopened).toBe(0);
  });

  it('throws a connection error when a stream ends before its terminal event and cannot be resumed', async () => {
    const stream = createResponseStream(async (signal) => opened([encoder.encode(wire(events.slice(0, 9)))], signal));
    await expect(stream.finalResponse()).rejects.toBeInstanceOf(APIConnectionError);
    expect(stream.currentResponse?.output).toHaveLength(2);
  });

  it('throws the error of an `error` event as an API error with its code and param', async () => {
    const failure = { type: 'error', sequence_number: 4, code: 'server_error', message: 'The engine stopped.', param: null } as ResponseStreamEvent;
    const stream = createResponseStream(async (signal) => opened([encoder.encode(wire([...events.slice(0, 3), failure]))], signal));
    const error = await stream.finalResponse().then(() => undefined, (caught: unknown) => caught);
    expect(QuantumChatApiError.isInstance(error)).toBe(true);
    expect((error as QuantumChatApiError).code).toBe('server_error');
    expect((error as Error).message).toBe('The engine stopped.');
  });

  it('rejects data that is not an event as a validation error', async () => {
    const stream = createResponseStream(async (signal) => opened([encoder.encode('data: {"no":"type"}\n\n')], signal));
    await expect(stream.finalResponse()).rejects.toBeInstanceOf(APIResponseValidationError);
  });

  it('a `break` cancels the request, and finalResponse then says the stream was stopped', async () => {
    let signalSeen: AbortSignal | undefined;
    const stream = createResponseStream(async (signal) => {
      signalSeen = signal;
      return opened([encoder.encode(wire(events.slice(0, 5)))], signal, undefined);
    });
    for await (const event of stream) if (event.type === 'response.in_progress') break;
    expect(signalSeen?.aborted).toBe(true);
    await expect(stream.finalResponse()).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it('hands out a replay that starts mid-way, and knows the response from the first event that carries it', async () => {
    const stream = createResponseStream(async (signal) => opened([encoder.encode(wire(events.slice(9)))], signal), undefined, undefined, { responseId: 'resp_1', startingAfter: 9 });
    expect(await collect(stream)).toEqual(events.slice(9));
    expect(await stream.finalResponse()).toEqual(completed);
  });
});
