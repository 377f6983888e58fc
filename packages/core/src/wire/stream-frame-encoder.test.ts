import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from '../sse/create-sse-decoder.js';
import { encodeSseEvent } from '../sse/encode-sse-event.js';
import { createStreamFrameEncoder, type StreamFormat } from './stream-frame-encoder.js';

const envelope = { id: 'chatcmpl-1', created: 1, model: 'quantum-fast' };

function decode(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ onEvent: (event) => events.push(event) });
  decoder.feed(text);
  return events;
}

/** Every frame one stream can send, in both formats. */
function everyFrame(format: StreamFormat): string[] {
  const encoder = createStreamFrameEncoder(format, envelope);
  return [
    encoder.reasoning('thinking\nabout "it"'),
    encoder.content('Hello\r\n', [{ token: 'Hello', logprob: -0.1, bytes: [72], top_logprobs: [] }]),
    encoder.toolCallStart(0, 'call_1', 'get_weather'),
    encoder.toolCallDelta(0, '{"city":"Paris"}'),
    encoder.finish('tool_calls', undefined, 'fp_1'),
    encoder.usage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    encoder.error({ error: { message: 'boom', type: 'server_error', param: null, code: 'upstream_error' } }),
    encoder.done(),
  ];
}

describe('createStreamFrameEncoder', () => {
  it.each(['quantum', 'openai'] as const)('writes each %s frame exactly as encodeSseEvent writes its event', (format) => {
    for (const frame of everyFrame(format)) {
      const [event, ...rest] = decode(frame);
      expect(rest).toEqual([]);
      expect(frame).toBe(encodeSseEvent({ event: event!.event, data: event!.data }));
    }
  });

  it('names the event of each frame but [DONE] in the quantum format only', () => {
    expect(everyFrame('quantum').map((frame) => decode(frame)[0]!.event)).toEqual(['thought_trace', 'message', 'message', 'message', 'message', 'message', 'error', undefined]);
    expect(everyFrame('openai').every((frame) => frame.startsWith('data: '))).toBe(true);
  });
});
