import { describe, expect, it } from 'vitest';
import { validateCreateResponse } from '../../request/responses/validate-create-response.js';
import { createSequentialResponseIdGenerator } from '../../run/responses/response-ids.js';
import { createResponseShell } from '../../run/responses/response-shell.js';
import type { ResponseStreamEvent } from '../../schemas/responses/response-stream-event.js';
import { createResponseEventEncoder } from '../../run/responses/response-event-encoder.js';
import { ResponseAccumulator, ResponseStreamFailedError, ResponseStreamProtocolError } from './accumulate-response.js';
import { createResponseEventReader, parseResponseEvent, readResponseStream } from './read-response-events.js';

function encoder() {
  const request = validateCreateResponse({ model: 'quantum-flash', input: 'Hi' });
  const shell = createResponseShell(request, { id: 'resp_r', createdAt: 1, model: request.model });
  return createResponseEventEncoder(shell, { generateId: createSequentialResponseIdGenerator(), showReasoning: true, showLogprobs: false, now: () => 2 });
}

const usage = { promptTokens: 1, completionTokens: 2, reasoningTokens: 0 };

describe('createResponseEventReader', () => {
  it('gives typed events, skipping keep-alive comments, from bytes split anywhere', () => {
    const write = encoder();
    const stream = write.start() + ': keep-alive\n\n' + write.encode({ type: 'content', text: 'héllo' }) + write.encode({ type: 'finish', reason: 'stop', usage });
    const bytes = new TextEncoder().encode(stream);
    const seen: ResponseStreamEvent[] = [];
    const reader = createResponseEventReader((event) => seen.push(event));
    for (let index = 0; index < bytes.length; index += 5) reader.feed(bytes.slice(index, index + 5));
    reader.end();
    expect(seen.map((event) => event.sequence_number)).toEqual(seen.map((_, index) => index));
    const delta = seen.find((event) => event.type === 'response.output_text.delta');
    expect(delta).toMatchObject({ type: 'response.output_text.delta', delta: 'héllo', output_index: 0, content_index: 0, item_id: expect.stringMatching(/^msg_/) });
  });

  it('refuses an event that is not JSON, or has no type', () => {
    expect(() => parseResponseEvent('nope')).toThrow(ResponseStreamProtocolError);
    expect(() => parseResponseEvent('{"delta":"x"}')).toThrow(ResponseStreamProtocolError);
  });
});

describe('readResponseStream', () => {
  it("skips event types it does not know (servers add them) and takes the server's final response", async () => {
    const write = encoder();
    const extra = 'event: response.output_text.annotation.added\ndata: {"type":"response.output_text.annotation.added","sequence_number":99}\n\n';
    const stream = write.start() + write.encode({ type: 'content', text: 'A' }) + extra + write.encode({ type: 'finish', reason: 'stop', usage });
    expect(await readResponseStream([stream])).toEqual(write.response());
  });

  it('rejects with the error an error event carried, keeping a failed response readable', async () => {
    const write = encoder();
    const stream = write.start() + write.fail({ code: 'upstream_error', message: 'boom', param: null });
    const failed = await readResponseStream([stream]);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'upstream_error', message: 'boom' } });
    // Only the `error` event, no terminal response: the error itself is the answer.
    const [errorFrame] = stream.split('\n\n').filter((frame) => frame.startsWith('event: error'));
    await expect(readResponseStream([write.start(), `${errorFrame!}\n\n`])).rejects.toMatchObject({ name: 'ResponseStreamFailedError', code: 'upstream_error', message: 'boom' });
  });

  it('rejects a stream that ends before its response did', async () => {
    const write = encoder();
    await expect(readResponseStream([write.start() + write.encode({ type: 'content', text: 'A' })])).rejects.toBeInstanceOf(ResponseStreamFailedError);
    await expect(readResponseStream([''])).rejects.toBeInstanceOf(ResponseStreamProtocolError);
  });

  it('rejects events about an item the stream never added', async () => {
    const write = encoder();
    const stray = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_x","output_index":3,"content_index":0,"delta":"x","sequence_number":2}\n\n';
    await expect(readResponseStream([write.start() + stray])).rejects.toThrow(/output 3/);
    await expect(readResponseStream([stray])).rejects.toThrow(/began with/);
  });

  it('starts a part with its first delta when a server skipped content_part.added', () => {
    const write = encoder();
    const frames = [
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] } },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 1, content_index: 0, delta: 'hm' },
      { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 1, summary_index: 0, delta: 'short' },
    ].map((event, index) => `data: ${JSON.stringify({ ...event, sequence_number: index + 2 })}\n\n`);
    const accumulator = new ResponseAccumulator();
    const reader = createResponseEventReader((event) => accumulator.apply(event));
    reader.feed(write.start() + frames.join(''));
    reader.end();
    expect(accumulator.snapshot!.output).toEqual([
      { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'short' }], content: [{ type: 'reasoning_text', text: 'hm' }] },
    ]);
  });

  it("reads another server's reasoning_text parts", () => {
    const write = encoder();
    const frames = [
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      { type: 'response.content_part.added', item_id: 'rs_1', output_index: 0, content_index: 0, part: { type: 'reasoning_text', text: '' } },
      { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'think' },
      { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'ing' },
    ].map((event, index) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index + 2 })}\n\n`);
    const accumulator = new ResponseAccumulator();
    const reader = createResponseEventReader((event) => accumulator.apply(event));
    reader.feed(write.start() + frames.join(''));
    reader.end();
    expect(accumulator.snapshot!.output[0]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'thinking' }] });
  });
});
