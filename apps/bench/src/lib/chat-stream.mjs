// A realistic chat stream for the decoder benchmarks: a reasoner's answer in the quantum format
// (thought traces, then message chunks, token-sized pieces with some non-ASCII text), encoded
// by the core's own frame encoder, as the server would send it.
import { createRandom } from './stats.mjs';

const vocabulary = [
  ' the', ' a', ' stream', ' of', ' tokens', ',', '.', ' and', ' server', '-sent', ' events', ' is', ' simple', ' to',
  ' run', ' behind', ' proxies', ' JSON', ' chunk', '\n\n', ' café', ' naïve', ' résumé', ' —', ' 東京', ' 你好', ' 🙂',
  ' "quoted"', ' back\\slash', ' 42', ' 3.14', ' for', ' every', ' request', ' we', ' write', ' one', ' frame', ':',
];

/**
 * About `bytes` bytes of one stream: 30 % thought-trace events, then message chunks, the finish
 * chunk with usage and `[DONE]`. Returns the text and its event count.
 */
export function createChatStream(createStreamFrameEncoder, bytes = 10 * 1024 * 1024, seed = 11) {
  const random = createRandom(seed);
  const encoder = createStreamFrameEncoder('quantum', { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', created: 1_767_225_600, model: 'quantum-reasoner' });
  const parts = [];
  let size = 0;
  let events = 0;
  const piece = () => {
    const count = 1 + Math.floor(random() * 3);
    let text = '';
    for (let index = 0; index < count; index++) text += vocabulary[Math.floor(random() * vocabulary.length)];
    return text;
  };
  while (size < bytes * 0.3) {
    const frame = encoder.reasoning(piece());
    parts.push(frame);
    size += Buffer.byteLength(frame);
    events++;
  }
  while (size < bytes - 600) {
    const frame = encoder.content(piece());
    parts.push(frame);
    size += Buffer.byteLength(frame);
    events++;
  }
  const usage = { prompt_tokens: 40, completion_tokens: events, total_tokens: 40 + events, completion_tokens_details: { reasoning_tokens: 0 } };
  parts.push(encoder.finish('stop', usage), encoder.done());
  events += 2;
  return { text: parts.join(''), events };
}

/** One event whose data line is `bytes` long (a long JSON string), for the linearity test. */
export function createLongEvent(bytes, seed = 7) {
  const random = createRandom(seed);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const head = 'event: message\ndata: {"content":"';
  const tail = '"}\n\n';
  const chunk = Array.from({ length: 4096 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  let body = '';
  while (body.length < bytes - head.length - tail.length) body += chunk;
  return head + body.slice(0, bytes - head.length - tail.length) + tail;
}

/** Cuts `text` into pieces of `size` characters, or of random sizes in [1, 8192] for 'random'. */
export function cutText(text, size, seed = 5) {
  const pieces = [];
  const random = createRandom(seed);
  for (let start = 0; start < text.length; ) {
    const length = size === 'random' ? 1 + Math.floor(random() * 8192) : size;
    pieces.push(text.slice(start, start + length));
    start += length;
  }
  return pieces;
}

/** Cuts `bytes` into byte pieces the same way (a byte piece may end inside a UTF-8 character). */
export function cutBytes(bytes, size, seed = 5) {
  const pieces = [];
  const random = createRandom(seed);
  for (let start = 0; start < bytes.length; ) {
    const length = size === 'random' ? 1 + Math.floor(random() * 8192) : size;
    pieces.push(bytes.subarray(start, start + length));
    start += length;
  }
  return pieces;
}
