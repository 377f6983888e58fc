import type { NodeServerResponseLike } from './node-like.js';

/**
 * A signal that aborts when the response closes before it ended (the client went away),
 * made on first use: most short requests never look at it, and an `AbortController` per
 * request was a measurable part of a JSON request's cost. Watching `close` starts at once,
 * so a signal asked for after the client left comes back already aborted.
 *
 * @example
 * const signal = clientGoneSignal(res);
 * const request = { ...fields, get signal() { return signal(); } };
 */
export function clientGoneSignal(res: NodeServerResponseLike): () => AbortSignal {
  let controller: AbortController | undefined;
  let gone = false;
  const reason = () => new Error('The client closed the connection.');
  const onClose = () => {
    if (res.writableEnded) return;
    gone = true;
    controller?.abort(reason());
  };
  // A host parser may have read the body while the client left: 'close' has fired already then.
  if (res.destroyed) onClose();
  else res.on('close', onClose);
  return () => {
    if (controller === undefined) {
      controller = new AbortController();
      if (gone) controller.abort(reason());
    }
    return controller.signal;
  };
}
