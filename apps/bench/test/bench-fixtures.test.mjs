// A smoke test of the benchmark's own fixtures, so that a broken bench is caught by the test
// run without timing anything: the three decoders agree on the stream, the three encoders
// write the same bytes, and the bare routes' frames are the handler's frames.
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createSseDecoder } from '@quantum-chat/core/sse';
import { connectionFromSignal, createStreamFrameEncoder } from '@quantum-chat/core/host';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { createChatStream, createLongEvent, cutBytes, cutText } from '../src/lib/chat-stream.mjs';
import { createFixedEngine, requestHeaders, streamRequestBody } from '../src/lib/fixtures.mjs';
import { median, percentile } from '../src/lib/stats.mjs';
import { createBareFrames } from '../src/servers/bare-responses.mjs';

function decodeWithCore(pieces) {
  const events = [];
  const decoder = createSseDecoder({ onEvent: (event) => events.push(event) });
  for (const piece of pieces) decoder.feed(piece);
  decoder.end();
  return events.map((event) => [event.event, event.data]);
}

function decodeWithParser(pieces) {
  const events = [];
  const parser = createParser({ onEvent: (event) => events.push([event.event, event.data]) });
  for (const piece of pieces) parser.feed(piece);
  return events;
}

describe('the benchmark stream', () => {
  it('should decode to the same events with the core decoder and eventsource-parser, however it is cut', () => {
    const { text, events } = createChatStream(createStreamFrameEncoder, 64 * 1024);
    const reference = decodeWithParser([text]);
    expect(reference).toHaveLength(events);
    expect(decodeWithCore(cutText(text, 1024))).toEqual(reference);
    expect(decodeWithCore(cutText(text, 'random'))).toEqual(reference);
    expect(decodeWithCore(cutBytes(new TextEncoder().encode(text), 'random'))).toEqual(reference);
    expect(decodeWithParser(cutText(text, 'random'))).toEqual(reference);
  });

  it('should hold one long event of the asked size', () => {
    const event = createLongEvent(64 * 1024);
    expect(event).toHaveLength(64 * 1024);
    expect(decodeWithCore(cutText(event, 1024))).toHaveLength(1);
  });
});

describe('the bare routes', () => {
  it('should write the same frames as the handler, apart from the id and clock', async () => {
    const handler = createChatHandler({ engine: createFixedEngine(), accessControl: insecureAcceptAnyApiKey() });
    const response = await handler.handle({
      method: 'POST',
      path: '/chat/completions',
      headers: requestHeaders,
      body: { kind: 'text', text: streamRequestBody },
      connection: connectionFromSignal(new AbortController().signal, () => undefined),
    });
    let ours = '';
    for await (const frame of response.events) ours += frame;
    const frames = createBareFrames().start();
    let bare = '';
    for await (const event of createFixedEngine().generate({ user: JSON.parse(streamRequestBody).user }, { signal: new AbortController().signal, requestId: 'r' })) {
      if (event.type === 'content') bare += frames.content(event.text);
    }
    bare += frames.finish() + frames.done();
    const normalise = (text) => text.replace(/"id":"chatcmpl-[^"]+"/g, '"id":"x"').replace(/"created":\d+/g, '"created":0');
    expect(normalise(bare)).toBe(normalise(ours));
  });
});

describe('stats', () => {
  it('should take medians and nearest-rank percentiles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
  });
});
