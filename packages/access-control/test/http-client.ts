import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import type { ErrorEnvelope } from '@quantum-chat/core';

/** A chat body for the reference engine; `content` picks what it answers. */
export function chatBody(overrides: Record<string, unknown> = {}, content = 'Tell me about the quantum lite model.'): Record<string, unknown> {
  return { model: 'quantum-lite', messages: [{ role: 'user', content }], max_tokens: 200, ...overrides };
}

/** POSTs `/chat/completions` with a key (or none) over real HTTP. */
export function postChat(
  baseUrl: string,
  key: string | undefined,
  body: Record<string, unknown> | string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The error envelope of a response, validated against the wire schema. */
export async function errorOf(response: Response): Promise<ErrorEnvelope['error']> {
  return errorEnvelopeSchema.parse(await response.json()).error;
}

/** Polls until `check` holds (settle runs after the response has ended). */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('The condition did not hold in time.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
