import { chatCompletionSchema, errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import type { RawResponse } from './send-raw.js';

/** What must match between hosts for the same bytes. */
export interface AnswerSummary {
  status: number;
  type?: string;
  code?: string | null;
  param?: string | null;
  ignoredParams?: string;
  /** For a 200: the answer without ids and clocks (the reference engine is deterministic). */
  answer?: unknown;
}

/** Drops what differs by design between two runs: ids and timestamps. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'id' && key !== 'created').map(([key, child]) => [key, withoutIds(child)]));
}

/** The data of every SSE event of a stream, in order. */
function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .filter((frame) => frame !== '' && !frame.startsWith(':'))
    .map((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n'));
}

/**
 * Checks one host's answer against the rules every answer must follow, and returns what must
 * be the same from the other host. Throws with a reason.
 */
export function checkAnswer(host: string, method: string, response: RawResponse): AnswerSummary {
  const fail = (why: string): never => {
    throw new Error(`${host}: ${why} (status ${response.status}, body ${JSON.stringify(response.body.slice(0, 300))})`);
  };
  if (response.status >= 500) fail('a status of 500 or more');
  if (typeof response.headers['x-request-id'] !== 'string') fail('no x-request-id');
  const ignoredParams = response.headers['x-quantum-ignored-params'] as string | undefined;
  if (response.status >= 300) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      fail('an error body that is not JSON');
    }
    const envelope = errorEnvelopeSchema.safeParse(parsed);
    if (!envelope.success) return fail('an error body that is not the envelope');
    if (typeof envelope.data.error.code !== 'string') fail('an error without a string code');
    const { type, code, param } = envelope.data.error;
    return { status: response.status, type, code, param, ...(ignoredParams !== undefined ? { ignoredParams } : {}) };
  }
  if (method === 'HEAD') return { status: response.status };
  const contentType = String(response.headers['content-type'] ?? '');
  if (contentType.startsWith('text/event-stream')) {
    if (!response.body.endsWith('data: [DONE]\n\n')) fail('a stream that does not end with data: [DONE]');
    const events = sseData(response.body);
    const chunks = events.slice(0, -1).map((data) => {
      try {
        return JSON.parse(data) as { error?: unknown };
      } catch {
        return fail(`a stream event that is not JSON: ${data.slice(0, 100)}`);
      }
    });
    if (chunks.some((chunk) => chunk.error !== undefined)) fail('an error frame in a stream that ended with [DONE]');
    return { status: response.status, answer: withoutIds(chunks), ...(ignoredParams !== undefined ? { ignoredParams } : {}) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    return fail('a 200 body that is not JSON');
  }
  const path = (parsed as { object?: string }).object;
  if (path === 'chat.completion') {
    const completion = chatCompletionSchema.safeParse(parsed);
    if (!completion.success) fail(`an invalid chat completion: ${completion.error.issues[0]?.message}`);
  }
  return { status: response.status, answer: withoutIds(parsed), ...(ignoredParams !== undefined ? { ignoredParams } : {}) };
}
