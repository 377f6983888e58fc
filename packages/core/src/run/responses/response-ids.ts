import { randomBase62 } from '../../ids.js';

/** The kinds of identifier a response and its output items get. */
export type ResponseIdKind = 'response' | 'message' | 'reasoning' | 'function-call' | 'call';

/** Makes an identifier of a kind; injected so that tests can compare bytes exactly. */
export type GenerateResponseId = (kind: ResponseIdKind) => string;

const prefixes: Record<ResponseIdKind, string> = { response: 'resp_', message: 'msg_', reasoning: 'rs_', 'function-call': 'fc_', call: 'call_' };

/** The default: `resp_`, `msg_`, `rs_`, `fc_` or `call_` and 24 random base62 characters. */
export const generateRandomResponseId: GenerateResponseId = (kind) => prefixes[kind] + randomBase62(24);

/** A deterministic id maker for tests: `resp_000…1`, `msg_000…2`, ... */
export function createSequentialResponseIdGenerator(): GenerateResponseId {
  let counter = 0;
  return (kind) => prefixes[kind] + String(++counter).padStart(24, '0');
}
