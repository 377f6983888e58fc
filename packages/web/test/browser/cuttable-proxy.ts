import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy in front of a server whose network a test can take away and give back. */
export interface CuttableProxy {
  /** `http://127.0.0.1:<port>`: load pages from here instead of the server. */
  origin: string;
  /**
   * The network goes away: every open connection is reset (as a phone changing network sees
   * it), and new ones are held, unanswered, until `restore`.
   */
  cut(): void;
  /** The network is back: held connections go through, and so do new ones. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` (an `http://127.0.0.1:<port>` origin). Chromium's offline mode
 * cannot stand in for it: it fails new requests but leaves a response already streaming
 * untouched, so a stream never sees its connection drop.
 */
export async function startCuttableProxy(target: string): Promise<CuttableProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const held: Socket[] = [];
  let isCut = false;

  const forward = (client: Socket) => {
    const upstream = connect(Number(port), hostname);
    open.add(client);
    open.add(upstream);
    const forget = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  };

  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (!isCut) return forward(client);
    client.pause();
    held.push(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');

  return {
    origin: `http://127.0.0.1:${address.port}`,
    cut() {
      isCut = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      isCut = false;
      for (const client of held.splice(0)) if (!client.destroyed) forward(client);
    },
    async close() {
      for (const socket of [...open, ...held]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
