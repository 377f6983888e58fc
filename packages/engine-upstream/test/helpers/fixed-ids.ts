import type { GenerateId } from '@quantum-chat/core';

/** Ids numbered per kind, so expected bodies do not depend on the order ids are made in. */
export function createFixedIds(): GenerateId {
  const counters = { completion: 0, 'tool-call': 0, request: 0 };
  const prefixes = { completion: 'chatcmpl-', 'tool-call': 'call_', request: 'req_' };
  return (kind) => prefixes[kind] + String(++counters[kind]).padStart(24, '0');
}

export const fixedNow = () => 1_750_000_000_000;
export const fixedCreated = 1_750_000_000;
