/**
 * Why a stream was given up: its consumer stopped pulling frames (the client stopped reading
 * and the socket is full). It never crosses the wire: the core closes the connection instead
 * (`ClientConnection.destroy`), because a client that does not read cannot be told anything.
 */
export class StreamStalledError extends Error {
  constructor(timeoutMs: number) {
    super(`The client read nothing for ${timeoutMs} ms; the stream was ended.`);
    this.name = 'StreamStalledError';
  }
}
