import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The text the failing upstream streams before it dies. */
export const partialAnswer = 'This answer is cut';

/** An OpenAI-compatible stand-in that streams a few chunks, then drops the connection. */
export interface FailingUpstream {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts an upstream that sends the role chunk and three content pieces, then destroys the
 * socket without `[DONE]`: what a crashed model runtime looks like from the ready server. The
 * server maps it to a mid-stream error frame, which is what the clients must surface.
 *
 * @example
 * const upstream = await startFailingUpstream();
 * onTestFinished(() => upstream.close());
 */
export async function startFailingUpstream(): Promise<FailingUpstream> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.once('end', () => {
      const chunk = (delta: Record<string, unknown>) =>
        `data: ${JSON.stringify({ id: 'up-1', object: 'chat.completion.chunk', created: 1, model: 'broken', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', content: '' }));
      for (const piece of partialAnswer.split(/(?= )/)) response.write(chunk({ content: piece }));
      // Let the pieces reach the server before the connection dies.
      setTimeout(() => response.socket?.destroy(), 50);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
