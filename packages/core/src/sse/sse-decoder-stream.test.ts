import { describe, expect, it } from 'vitest';
import type { SseEvent } from './create-sse-decoder.js';
import { SseDecoderStream } from './sse-decoder-stream.js';

function streamOf<T>(chunks: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<SseEvent>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    events.push(value);
  }
}

describe('SseDecoderStream', () => {
  it('should turn byte chunks cut anywhere into events', async () => {
    const bytes = new TextEncoder().encode('event: message\ndata: {"text":"😀"}\r\n\r\ndata: [DONE]\n\n');
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, 27), bytes.subarray(27, 34), bytes.subarray(34)];
    const events = await collect(streamOf(chunks).pipeThrough(new SseDecoderStream()));
    expect(events).toEqual([
      { event: 'message', data: '{"text":"😀"}', id: undefined },
      { event: undefined, data: '[DONE]', id: undefined },
    ]);
  });

  it('should accept string chunks', async () => {
    const events = await collect(streamOf(['data: a\n', '\nda', 'ta: b\n\n']).pipeThrough(new SseDecoderStream()));
    expect(events.map((event) => event.data)).toEqual(['a', 'b']);
  });

  it('should drop an incomplete event at the end of the stream', async () => {
    const events = await collect(streamOf(['data: a\n\n', 'data: cut\n']).pipeThrough(new SseDecoderStream()));
    expect(events.map((event) => event.data)).toEqual(['a']);
  });

  it('should report comments and retries to the options', async () => {
    const comments: string[] = [];
    const retries: number[] = [];
    const stream = new SseDecoderStream({
      onComment: (comment) => comments.push(comment),
      onRetry: (retry) => retries.push(retry),
    });
    const events = await collect(streamOf([': keep-alive\n\nretry: 500\ndata: x\n\n']).pipeThrough(stream));
    expect({ comments, retries, data: events.map((event) => event.data) }).toEqual({
      comments: ['keep-alive'],
      retries: [500],
      data: ['x'],
    });
  });
});
