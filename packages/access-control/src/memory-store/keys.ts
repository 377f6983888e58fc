import { randomBase62 } from '@quantum-chat/core/host';
import type { ApiKeyRecord, ApiKeyStore } from '../service-store/index.js';
import { copyKey, copyOrganisation, emit, requireOrganisation, type MemoryState } from './state.js';

/** Keys in two maps, by id and by hash. @internal */
export function createMemoryKeys(state: MemoryState): ApiKeyStore {
  const { keys, keysByHash } = state;
  return {
    async createKey(input) {
      requireOrganisation(state, input.organisation);
      if (keysByHash.has(input.hash)) throw new Error('A key with this hash already exists.');
      const record: ApiKeyRecord = {
        id: `key_${randomBase62(16)}`,
        organisation: input.organisation,
        kind: input.kind,
        hash: input.hash,
        prefix: input.prefix,
        last4: input.last4,
        requireSignature: input.requireSignature ?? false,
        revoked: false,
        createdAt: state.now(),
        expiresAt: input.expiresAt ?? null,
        allowedModels: input.allowedModels ? [...input.allowedModels] : null,
        limits: { ...input.limits },
      };
      keys.set(record.id, record);
      keysByHash.set(record.hash, record);
      return copyKey(record);
    },
    async getKey(id) {
      const key = keys.get(id);
      return key && copyKey(key);
    },
    async findKeyByHash(hash) {
      const key = keysByHash.get(hash);
      if (key === undefined) return undefined;
      return { key: copyKey(key), organisation: copyOrganisation(requireOrganisation(state, key.organisation)) };
    },
    async listKeys(filter = {}) {
      return [...keys.values()].filter((key) => filter.organisation === undefined || key.organisation === filter.organisation).map(copyKey);
    },
    async revokeKey(id) {
      const key = keys.get(id);
      if (key === undefined) return false;
      key.revoked = true;
      emit(state, { kind: 'key', hash: key.hash });
      return true;
    },
    async updateKey(id, change) {
      const key = keys.get(id);
      if (key === undefined) return undefined;
      if (change.expiresAt !== undefined) key.expiresAt = change.expiresAt;
      if (change.allowedModels !== undefined) key.allowedModels = change.allowedModels && [...change.allowedModels];
      for (const [field, value] of Object.entries(change.limits ?? {})) {
        if (value !== undefined) key.limits[field as keyof ApiKeyRecord['limits']] = value;
      }
      for (const field of change.resetLimits ?? []) delete key.limits[field];
      if (change.rotation !== undefined) key.rotation = { ...change.rotation };
      emit(state, { kind: 'key', hash: key.hash });
      return copyKey(key);
    },
  };
}
