import { defaultApiKeyPrefixes, generateApiKey, type ApiKeyKind, type ApiKeyPrefixes } from '@quantum-chat/core';
import { hashApiKey } from './hash-api-key.js';
import type { ApiKeyRecord, ServiceStore } from './service-store/index.js';
import type { LimitOverrides } from './plan-limits.js';

export interface IssueApiKeyInput {
  organisation: string;
  kind: ApiKeyKind;
  requireSignature?: boolean;
  /** When the key stops working (ms since the epoch); never by default. */
  expiresAt?: number | null;
  /** The only models the key may use; every model its plan allows by default. */
  allowedModels?: readonly string[] | null;
  /** The key's own limits, counted apart and applied within its organisation's; none by default. */
  limits?: LimitOverrides;
  prefixes?: ApiKeyPrefixes;
}

/**
 * Makes a new key and stores only its hash. The returned `key` is the one and only time the
 * secret exists outside the caller: show it once.
 *
 * @example
 * const { key, record } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
 */
export async function issueApiKey(store: ServiceStore, input: IssueApiKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const prefixes = input.prefixes ?? defaultApiKeyPrefixes;
  const key = generateApiKey(input.kind, prefixes);
  const record = await store.createKey({
    organisation: input.organisation,
    kind: input.kind,
    hash: hashApiKey(key),
    prefix: prefixes[input.kind],
    last4: key.slice(-4),
    requireSignature: input.requireSignature ?? false,
    ...(input.expiresAt != null ? { expiresAt: input.expiresAt } : {}),
    ...(input.allowedModels != null ? { allowedModels: input.allowedModels } : {}),
    ...(input.limits !== undefined ? { limits: input.limits } : {}),
  });
  return { key, record };
}

/**
 * The display form of a stored key: prefix and last 4.
 *
 * @example
 * displayKeyRecord(record) // 'qc_live_…a1B2'
 */
export function displayKeyRecord(record: Pick<ApiKeyRecord, 'prefix' | 'last4'>): string {
  return `${record.prefix}…${record.last4}`;
}
