import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in OpenAI-compatible server on 127.0.0.1 that streams one fixed answer. */
export interface FakeUpstream {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** The JSON bodies and authorization (and W3C trace) headers it received. */
  requests: { body: Record<string, unknown>; authorization: string | undefined; traceparent?: string | undefined; tracestate?: string | undefined }[];
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Streams `answer` as OpenAI chunks (a `[DONE]`-terminated SSE body with `usage`, unless it is
 * `null`), whatever it is asked; `chunkFields` are added to every chunk (`system_fingerprint`).
 *
 * @example
 * const upstream = await startFakeUpstream('Hello from upstream.');
 */
export async function startFakeUpstream(
  answer: string,
  usage: Record<string, unknown> | null = { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 },
  chunkFields: Record<string, unknown> = {},
): Promise<FakeUpstream> {
  const requests: FakeUpstream['requests'] = [];
  const server: Server = createServer(async (request, response) => {
    const body = await readJson(request);
    requests.push({
      body,
      authorization: request.headers.authorization,
      traceparent: request.headers.traceparent as string | undefined,
      tracestate: request.headers.tracestate as string | undefined,
    });
    const chunk = (fields: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'up-1', object: 'chat.completion.chunk', created: 1, model: body.model, ...chunkFields, ...fields })}\n\n`;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: answer }, finish_reason: null }] }));
    response.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    if (usage !== null) response.write(chunk({ choices: [], usage }));
    response.end('data: [DONE]\n\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
