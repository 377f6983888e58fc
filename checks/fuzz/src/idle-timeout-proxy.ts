import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy that drops any connection idle (no bytes either way) for longer than `idleMs`, like a load balancer. */
export interface IdleTimeoutProxy {
  port: number;
  /** Connections the proxy dropped for idleness. */
  dropped: number;
  close(): Promise<void>;
}

export async function startIdleTimeoutProxy(targetPort: number, idleMs: number): Promise<IdleTimeoutProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; lastActivity: number }>();
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    const pair = { client, upstream, lastActivity: performance.now() };
    pairs.add(pair);
    const touch = () => (pair.lastActivity = performance.now());
    client.on('data', touch);
    upstream.on('data', touch);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop).on('error', drop);
    upstream.on('close', drop).on('error', drop);
  });
  const proxy: IdleTimeoutProxy = {
    port: 0,
    dropped: 0,
    close: async () => {
      clearInterval(sweep);
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const sweep = setInterval(() => {
    for (const pair of pairs) {
      if (performance.now() - pair.lastActivity > idleMs) {
        proxy.dropped++;
        pairs.delete(pair);
        pair.client.destroy();
        pair.upstream.destroy();
      }
    }
  }, 100);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}
