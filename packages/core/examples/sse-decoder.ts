import { createSseDecoder, type SseEvent } from '@quantum-chat/core/sse';

const events: SseEvent[] = [];
const decoder = createSseDecoder({
  onEvent: (event) => events.push(event), // { event: 'message' | 'thought_trace' | undefined, data, id }
  onComment: (comment) => console.log('comment:', comment), // e.g. 'keep-alive'
});

// Feed bytes or text as they arrive: a chunk may end anywhere, even inside a UTF-8 character.
const bytes = new TextEncoder().encode(': keep-alive\n\nevent: message\ndata: {"choices":[]}\n\ndata: [DONE]\n\n');
decoder.feed(bytes.subarray(0, 20));
decoder.feed(bytes.subarray(20));
decoder.end(); // the stream is over: an unfinished trailing event is dropped, as browsers do

console.log(events.map((event) => `${event.event ?? '(unnamed)'} ${event.data}`)); // [ 'message {"choices":[]}', '(unnamed) [DONE]' ]
