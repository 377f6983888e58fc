import { signRequestBody } from '@quantum-chat/core';
import type { ConformanceCase } from './load-cases.js';

/** The fetch a host is reached through: global `fetch` over HTTP, or a host's in-process one. */
export type ConformanceFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Sends a case's stored request: its exact body bytes (never a string, so no content type is
 * added behind our back), its headers, and an `x-service-signature` computed over the bytes
 * when the case asks for one.
 */
export async function sendCaseRequest(testCase: ConformanceCase, baseUrl: string, fetchImpl: ConformanceFetch, signal?: AbortSignal): Promise<Response> {
  const { method, path, headers, body, sign } = testCase.request;
  const sent: Record<string, string> = { ...headers };
  if (sign !== undefined) sent['x-service-signature'] = await signRequestBody(sign.secret, body ?? new Uint8Array(0), sign.timestampSeconds);
  return fetchImpl(baseUrl.replace(/\/$/, '') + path, {
    method,
    headers: sent,
    ...(body !== undefined ? { body } : {}),
    redirect: 'manual',
    ...(signal !== undefined ? { signal } : {}),
  });
}
