import { signRequestBody } from '@quantum-chat/core';
import type { CaseRequest } from './load-cases.js';

/** The fetch a host is reached through: global `fetch` over HTTP, or a host's in-process one. */
export type ConformanceFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Values earlier steps of a case saved from their answers, by name. */
export type SavedValues = ReadonlyMap<string, string>;

const savedName = /\{\{([a-z][a-zA-Z0-9]*)\}\}/g;

/** Text with each `{{name}}` replaced by its saved value (the loader checked that each is saved). */
function fillSaved(text: string, saved: SavedValues): string {
  return text.replace(savedName, (whole, name: string) => {
    const value = saved.get(name);
    if (value === undefined) throw new Error(`no earlier step saved ${whole}`);
    return value;
  });
}

function filledBody(body: Uint8Array<ArrayBuffer> | undefined, saved: SavedValues): Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined || saved.size === 0) return body;
  const text = new TextDecoder().decode(body);
  return text.includes('{{') ? new TextEncoder().encode(fillSaved(text, saved)) : body;
}

/**
 * Sends a case's stored request: its exact body bytes (never a string, so no content type is
 * added behind our back), its headers, and an `x-service-signature` computed over the bytes
 * when the case asks for one. `{{name}}`s take the values earlier steps saved.
 */
export async function sendCaseRequest(
  request: CaseRequest,
  baseUrl: string,
  fetchImpl: ConformanceFetch,
  options: { signal?: AbortSignal; saved?: SavedValues } = {},
): Promise<Response> {
  const saved = options.saved ?? new Map<string, string>();
  const { method, headers, sign } = request;
  const body = filledBody(request.body, saved);
  const sent: Record<string, string> = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, fillSaved(value, saved)]));
  if (sign !== undefined) sent['x-service-signature'] = await signRequestBody(sign.secret, body ?? new Uint8Array(0), sign.timestampSeconds);
  return fetchImpl(baseUrl.replace(/\/$/, '') + fillSaved(request.path, saved), {
    method,
    headers: sent,
    ...(body !== undefined ? { body } : {}),
    redirect: 'manual',
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
}
