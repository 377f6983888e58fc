import { Agent, request } from 'node:http';

/** A response as bytes: what the fuzz and fault suites compare. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

/**
 * Sends exact bytes as the body (no re-encoding, so invalid UTF-8 and lone surrogates as raw
 * bytes reach the server as generated) over a keep-alive agent.
 */
export function sendRaw(port: number, agent: Agent | undefined, input: RawRequest, timeoutMs = 20_000): Promise<RawResponse> {
  // An explicit length: Node's client sends a DELETE body without one, which no server can frame.
  const headers = input.body === undefined ? input.headers : { ...input.headers, 'content-length': String(input.body.byteLength) };
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, method: input.method, path: input.path, headers, agent, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(input.body === undefined ? undefined : Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength));
  });
}
