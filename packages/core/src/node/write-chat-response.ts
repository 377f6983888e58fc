import type { ChatHttpResponse } from '../http/chat-http-types.js';
import type { NodeServerResponseLike } from './node-like.js';

/** Resolves on `drain`, or on `close` (a gone client never drains). */
function drained(res: NodeServerResponseLike): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off?.('drain', done);
      res.off?.('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/**
 * Writes the core's response to a Node response. Streams are written frame by frame: the
 * writer waits for `drain` when the socket is full (so a slow reader stops the engine
 * rather than filling memory) and calls `flush()` after each frame, because `compression`
 * would otherwise hold SSE frames back. `end()` is always called.
 *
 * @example
 * await writeChatResponse(res, await handler.handle(request));
 */
export async function writeChatResponse(res: NodeServerResponseLike, response: ChatHttpResponse): Promise<void> {
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.statusCode = response.status;
  if (!('events' in response)) {
    res.end(response.body);
    return;
  }
  res.writeHead(response.status);
  res.flush?.();
  const iterator = response.events[Symbol.asyncIterator]();
  try {
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      if (res.destroyed) break;
      const fits = res.write(step.value);
      res.flush?.();
      if (!fits) await drained(res);
    }
  } finally {
    // Stops the engine when the loop ended early (client gone); a no-op after a normal end.
    await iterator.return?.();
    if (!res.writableEnded) res.end();
  }
}
