import type { Readable } from 'node:stream';
import { bodyTooLarge } from './read-capped-body.js';

/**
 * A whole Node body as text, at most `maxBytes` of it (past that: `truncate` keeps what came and
 * lets go of the rest, else an upstream fault), read by its `data` events and decoded once. Why
 * not Node's async iterator: a promise and a result per chunk and an end-of-stream watcher of its
 * own, about 2 KB of garbage for each small JSON answer.
 */
export function readNodeText(stream: Readable, maxBytes: number, truncate: boolean): Promise<string> {
  return new Promise<string>((resolve, reject) => new NodeTextReader(stream, maxBytes, truncate, resolve, reject).start());
}

class NodeTextReader {
  readonly #chunks: Buffer[] = [];
  #received = 0;
  #settled = false;
  readonly #stream: Readable;
  readonly #maxBytes: number;
  readonly #truncate: boolean;
  readonly #resolve: (text: string) => void;
  readonly #reject: (error: unknown) => void;

  constructor(stream: Readable, maxBytes: number, truncate: boolean, resolve: (text: string) => void, reject: (error: unknown) => void) {
    this.#stream = stream;
    this.#maxBytes = maxBytes;
    this.#truncate = truncate;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  start(): void {
    const stream = this.#stream;
    // Destroyed before we listen (an abort in the same tick): its events are gone, so no wait.
    if (stream.destroyed) {
      this.#settled = true;
      this.#reject(stream.errored ?? prematureClose());
      return;
    }
    stream.on('data', this.#data.bind(this));
    stream.once('end', this.#end.bind(this));
    stream.once('error', this.#reject);
    // Closed without an end or an error: cut short, as the async iterator reports it.
    stream.once('close', this.#closed.bind(this));
  }

  #data(chunk: Buffer): void {
    if (this.#settled) return;
    const room = this.#maxBytes - this.#received;
    if (chunk.byteLength <= room) {
      this.#chunks.push(chunk);
      this.#received += chunk.byteLength;
      return;
    }
    this.#settled = true;
    // A body left unread closes its connection.
    this.#stream.destroy();
    if (!this.#truncate) {
      this.#reject(bodyTooLarge(this.#maxBytes));
      return;
    }
    if (room > 0) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#received += room;
    }
    this.#resolve(this.#text());
  }

  #end(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(this.#text());
  }

  #closed(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(prematureClose());
  }

  #text(): string {
    const chunks = this.#chunks;
    if (chunks.length === 1) return chunks[0]!.toString('utf8');
    return Buffer.concat(chunks, this.#received).toString('utf8');
  }
}

function prematureClose(): Error {
  return Object.assign(new Error('The upstream body ended before it was complete.'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
