// The report's sections on the CPU microbenchmarks (one process per group, process CPU time):
// each takes its group's results and returns the section's Markdown blocks, in order.
import { fixed, integer, mebibytes, pieceName, table } from './format.mjs';

/** Megabytes per second of CPU time. */
const throughput = (bytes, seconds) => integer(bytes / 1e6 / seconds);

function decodingStringsBlocks(data) {
  return [
    `A realistic ${mebibytes(data.bytes)} MiB chat stream (${integer(data.events)} events: thought traces, then message chunks with token-sized pieces, some non-ASCII), ` +
      'made by the core\'s frame encoder. Strings in (flat strings, as a TextDecoder produces them): the synchronous `feed()` of each. Speed-up = eventsource-parser\'s CPU time / the decoder\'s, median of 7 alternating rounds.',
    table(
      ['pieces', 'count', 'eventsource-parser 3 (MB/s)', 'core (MB/s)', 'core speed-up'],
      data.results.map((item) => [
        pieceName(item.pieceSize),
        integer(item.pieces),
        throughput(data.bytes, item.figures['eventsource-parser'].seconds),
        throughput(data.bytes, item.figures.core.seconds),
        `${fixed(item.figures.core.speedup)}×`,
      ]),
    ),
  ];
}

function decodingBytesBlocks(data) {
  const row = (item) => {
    const parser = item.figures['eventsource-parser + TextDecoder'];
    const core = item.figures.core;
    const openai = item.figures['openai _iterSSEMessages'];
    return [
      pieceName(item.pieceSize),
      throughput(data.bytes, parser.seconds),
      throughput(data.bytes, core.seconds),
      throughput(data.bytes, openai.seconds),
      `${fixed(core.speedup)}×`,
      `${fixed(openai.speedup, 3)}×`,
      `${fixed(openai.seconds / core.seconds, 1)}×`,
    ];
  };
  return [
    'Bytes in (`Uint8Array` pieces, which may end inside a UTF-8 character): the core decoder\'s `feed(bytes)`, eventsource-parser behind a streaming `TextDecoder`, and the `openai` package\'s decoder (`_iterSSEMessages` from `openai/core/streaming` over a `ReadableStream`, which is how the SDK reads a response). Speed-up relative to eventsource-parser + TextDecoder.',
    table(['pieces', 'eventsource-parser + TextDecoder (MB/s)', 'core bytes (MB/s)', 'openai (MB/s)', 'core speed-up', 'openai speed-up', 'core vs openai'], data.results.map(row)),
  ];
}

/** SSE decoding, from strings and from bytes: one section for whichever of the two ran. */
export function decodingSection({ decodingStrings, decodingBytes }) {
  if (!decodingStrings && !decodingBytes) return [];
  return [
    '## SSE decoding',
    ...(decodingStrings ? decodingStringsBlocks(decodingStrings) : []),
    ...(decodingBytes ? decodingBytesBlocks(decodingBytes) : []),
  ];
}

export function clientSection(data) {
  const ours = data.figures['@quantum-chat/client chat.completions.stream()'];
  const theirs = data.figures['openai chat.completions.create({ stream: true })'];
  return [
    '## Client stream iteration',
    `The same stream (${mebibytes(data.bytes)} MiB, ${integer(data.events)} events) served by a stub \`fetch\` in ${data.pieceSize / 1024} KiB pieces; each client is iterated to the end: bytes → SSE → JSON → typed events (ours also accumulates the message). Process CPU time, median of 7 alternating rounds.`,
    table(
      ['client', 'CPU time (ms)', 'MB/s', 'speed-up over openai'],
      [
        ['`openai` 6 `chat.completions.create({ stream: true })`', fixed(theirs.seconds * 1000, 1), throughput(data.bytes, theirs.seconds), '1.00×'],
        ['`@quantum-chat/client` `chat.completions.stream()`', fixed(ours.seconds * 1000, 1), throughput(data.bytes, ours.seconds), `${fixed(ours.speedup)}×`],
      ],
    ),
  ];
}

export function linearitySection(data) {
  const sizes = data.results[0].sizes;
  return [
    '## One long event (linearity)',
    `One event whose single data line is ${sizes.map((size) => `${size / 2 ** 20} MiB`).join(' or ')}, fed in small pieces. A linear decoder costs about ${data.sizeRatio}× as much for the larger one; a quadratic one about ${data.sizeRatio ** 2}×.`,
    table(
      ['decoder', 'pieces', ...sizes.map((size) => `${size / 2 ** 20} MiB (ms)`), 'growth'],
      data.results.map((item) => [item.decoder, pieceName(item.pieceSize), ...item.seconds.map((seconds) => fixed(seconds * 1000, 2)), `${fixed(item.growth)}×`]),
    ),
    'The `openai` decoder is fed 16 KiB pieces: it re-copies and re-scans its whole buffer for every piece, so 1 KiB pieces of a 4 MiB line would take minutes.',
  ];
}

export function encodingSection(data) {
  return [
    '## Encoding',
    `${integer(data.events)} content chunks per run, each serialised to a complete \`event: message\` frame; all three write the same bytes (checked). ` +
      '"JSON.stringify" and "fast-json-stringify" build the chunk object per event and serialise all of it; the core\'s frame encoder builds the envelope\'s JSON once per stream and serialises only the delta text.',
    table(
      ['encoder', 'ns per chunk', 'speed-up over JSON.stringify'],
      Object.entries(data.figures).map(([name, figure]) => [name, fixed((figure.seconds / data.events) * 1e9, 0), `${fixed(figure.speedup)}×`]),
    ),
  ];
}
