import { randomBase62 } from '@quantum-chat/core';
import type { ApiKeyRecord, KeyStore, Organisation, UsageRecord } from './key-store.js';
import { summariseUsageRecords } from './summarise-usage.js';

/**
 * A key store in memory: for tests and for embedders who load keys from elsewhere. Nothing
 * survives a restart.
 *
 * @example
 * const store = createMemoryKeyStore();
 */
export function createMemoryKeyStore(options: { now?: () => number } = {}): KeyStore {
  const now = options.now ?? Date.now;
  const organisations = new Map<string, Organisation>();
  const keys = new Map<string, ApiKeyRecord>();
  const keysByHash = new Map<string, ApiKeyRecord>();
  const usage: UsageRecord[] = [];
  const copyOrganisation = (organisation: Organisation): Organisation => ({ ...organisation, limits: { ...organisation.limits } });

  function requireOrganisation(name: string): Organisation {
    const organisation = organisations.get(name);
    if (organisation === undefined) throw new Error(`There is no organisation named '${name}'.`);
    return organisation;
  }

  return {
    async createOrganisation({ name, plan, limits }) {
      if (organisations.has(name)) throw new Error(`The organisation '${name}' already exists.`);
      const organisation: Organisation = { name, plan, limits: { ...limits }, createdAt: now() };
      organisations.set(name, organisation);
      return copyOrganisation(organisation);
    },
    async getOrganisation(name) {
      const organisation = organisations.get(name);
      return organisation && copyOrganisation(organisation);
    },
    async listOrganisations() {
      return [...organisations.values()].map(copyOrganisation);
    },
    async updateOrganisation(name, change) {
      const organisation = requireOrganisation(name);
      if (change.plan !== undefined) organisation.plan = change.plan;
      for (const [field, value] of Object.entries(change.limits ?? {})) {
        if (value !== undefined) organisation.limits[field as keyof Organisation['limits']] = value;
      }
      for (const field of change.resetLimits ?? []) delete organisation.limits[field];
      return copyOrganisation(organisation);
    },
    async createKey(input) {
      requireOrganisation(input.organisation);
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
        createdAt: now(),
      };
      keys.set(record.id, record);
      keysByHash.set(record.hash, record);
      return { ...record };
    },
    async findKeyByHash(hash) {
      const key = keysByHash.get(hash);
      if (key === undefined) return undefined;
      return { key: { ...key }, organisation: copyOrganisation(requireOrganisation(key.organisation)) };
    },
    async listKeys(filter = {}) {
      return [...keys.values()].filter((key) => filter.organisation === undefined || key.organisation === filter.organisation).map((key) => ({ ...key }));
    },
    async revokeKey(id) {
      const key = keys.get(id);
      if (key === undefined) return false;
      key.revoked = true;
      return true;
    },
    async recordUsage(record) {
      usage.push({ ...record });
    },
    async summariseUsage({ organisation, since }) {
      return summariseUsageRecords(usage.filter((record) => record.organisation === organisation && record.timestamp >= (since ?? 0)), keys);
    },
    async listUsage({ organisation, since }) {
      return usage.filter((record) => record.organisation === organisation && record.timestamp >= (since ?? 0)).map((record) => ({ ...record }));
    },
    async close() {},
  };
}
