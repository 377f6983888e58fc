import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { startUpstreamServer, type UpstreamServer } from './start-upstream-server.js';

/** The answers of a hostile or broken OpenAI-compatible server, each far beyond any `max_tokens`. */
export type HostileAnswer =
  /** An event stream, gzip-encoded, that inflates to `mib` MiB of content chunks (about 1 KB on the wire per MiB). */
  | { kind: 'gzip-stream'; mib: number }
  /** One whole JSON completion, gzip-encoded, whose content inflates to `mib` MiB. */
  | { kind: 'gzip-json'; mib: number }
  /** One whole JSON completion of `mib` MiB, plain. */
  | { kind: 'json'; mib: number }
  /** A 500 whose JSON error body is `mib` MiB. */
  | { kind: 'error-body'; mib: number }
  /** A stream whose first `data:` line never ends (`mib` MiB of it, then the connection closes). */
  | { kind: 'endless-line'; mib: number }
  /** A stream of one tool call whose arguments are `mib` MiB, in 4 KiB deltas, then usage of 4 completion tokens. */
  | { kind: 'tool-arguments'; mib: number }
  /** The same tool call, its whole arguments in one event. */
  | { kind: 'tool-arguments-one-event'; mib: number }
  /** `mib` MiB of content in 4 KiB deltas, finished, with usage reporting one completion token. */
  | { kind: 'under-reported'; mib: number }
  /** `mib` MiB of chunks that carry no token, only a field nobody reads. */
  | { kind: 'padding-stream'; mib: number }
  /** One whole JSON completion: a tool call whose arguments are `mib` MiB, usage of 4 completion tokens. */
  | { kind: 'json-tool-arguments'; mib: number }
  /** One whole JSON completion of `mib` MiB of content, its usage reporting one completion token. */
  | { kind: 'json-under-reported'; mib: number };

const mebibyte = 1024 * 1024;

function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion.chunk', created: 1, model: 'hostile', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
}

const finishFrames = `data: ${JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion.chunk', created: 1, model: 'hostile', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`;

/** `frame` repeated to about `bytes` (one MiB at most), whole frames only. */
function blockOf(frame: string, bytes = mebibyte): Buffer {
  return Buffer.from(frame.repeat(Math.max(1, Math.floor(Math.min(bytes, mebibyte) / frame.length))), 'utf8');
}

/** Writes whole copies of `frame` until about `mib` MiB are written. */
async function writeFrames(response: ServerResponse, frame: string, mib: number): Promise<void> {
  const block = blockOf(frame, mib * mebibyte);
  await writeRepeated(response, block, Math.ceil((mib * mebibyte) / block.length));
}

/** Writes `block` `times` times, waiting for the socket to drain; stops when the client goes. */
export async function writeRepeated(response: ServerResponse, block: Buffer, times: number): Promise<void> {
  for (let index = 0; index < times; index++) {
    if (response.destroyed || response.writableEnded) return;
    if (!response.write(block)) {
      const drained = once(response, 'drain').then(() => true);
      const closed = once(response, 'close').then(() => false);
      if (!(await Promise.race([drained, closed]))) return;
    }
  }
}

function end(response: ServerResponse, last?: Buffer | string): void {
  if (!response.destroyed && !response.writableEnded) response.end(last);
}

async function answer(response: ServerResponse, hostile: HostileAnswer): Promise<void> {
  const { mib } = hostile;
  switch (hostile.kind) {
    case 'gzip-stream': {
      // Concatenated gzip members decode as one body: one tiny member, inflating to a MiB, sent `mib` times.
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      await writeRepeated(response, gzipSync(blockOf(chunk({ content: 'a'.repeat(1000) })), { level: 9 }), mib);
      end(response, gzipSync(`${finishFrames}data: [DONE]\n\n`));
      return;
    }
    case 'gzip-json': {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.write(gzipSync('{"id":"chatcmpl-hostile","object":"chat.completion","created":1,"model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"'));
      await writeRepeated(response, gzipSync(Buffer.alloc(mebibyte, 'a'), { level: 9 }), mib);
      end(response, gzipSync('"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'));
      return;
    }
    case 'json': {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"chatcmpl-hostile","object":"chat.completion","created":1,"model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"');
      await writeRepeated(response, Buffer.alloc(mebibyte, 'a'), mib);
      end(response, '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}');
      return;
    }
    case 'error-body': {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.write('{"error":{"type":"server_error","message":"');
      await writeRepeated(response, Buffer.alloc(mebibyte, 'e'), mib);
      end(response, '"}}');
      return;
    }
    case 'endless-line': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"');
      await writeRepeated(response, Buffer.alloc(mebibyte, 'x'), mib);
      response.destroy();
      return;
    }
    case 'tool-arguments':
    case 'tool-arguments-one-event': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }] }));
      if (hostile.kind === 'tool-arguments') {
        await writeFrames(response, chunk({ tool_calls: [{ index: 0, function: { arguments: 'b'.repeat(4096) } }] }), mib);
      } else {
        response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: 'b'.repeat(mib * mebibyte) } }] }));
      }
      end(response, `${finishFrames}${chunk({}, { choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } })}data: [DONE]\n\n`);
      return;
    }
    case 'padding-stream': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeFrames(response, chunk({}, { padding: 'p'.repeat(4096) }), mib);
      end(response, `${finishFrames}data: [DONE]\n\n`);
      return;
    }
    case 'json-tool-arguments': {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(
        '{"id":"chatcmpl-hostile","object":"chat.completion","created":1,"model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"',
      );
      await writeRepeated(response, Buffer.alloc(mebibyte, 'b'), mib);
      end(response, '"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}');
      return;
    }
    case 'json-under-reported': {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"chatcmpl-hostile","object":"chat.completion","created":1,"model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"');
      await writeRepeated(response, Buffer.alloc(Math.round(mib * mebibyte), 'c'), 1);
      end(response, '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}');
      return;
    }
    case 'under-reported': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeFrames(response, chunk({ content: 'c'.repeat(4096) }), mib);
      end(response, `${finishFrames}${chunk({}, { choices: [], usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } })}data: [DONE]\n\n`);
      return;
    }
  }
}

/**
 * A real node:http server on 127.0.0.1 that gives every request the same hostile answer,
 * written with backpressure, so it sends only as much as its client reads.
 *
 * @example
 * const upstream = await startHostileUpstream({ kind: 'gzip-stream', mib: 400 });
 */
export function startHostileUpstream(hostile: HostileAnswer): Promise<UpstreamServer> {
  return startUpstreamServer((_request, response) => answer(response, hostile));
}
