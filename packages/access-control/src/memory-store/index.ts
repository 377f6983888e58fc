import { randomBase62 } from '@quantum-chat/core';
import type { ApiKeyRecord, AuditEntry, KeyStore, Organisation, StoreChange, UsageRecord } from './key-store.js';
import { maxAuditEntries } from './store-rows.js';
import { summariseUsageByDay, summariseUsageRecords } from './summarise-usage.js';

/** What a usage row adds to its day's count: its reservation while it runs, its tokens once settled. */
const dailyShare = (record: UsageRecord) => (record.settled ? record.promptTokens + record.completionTokens : record.daily!.charged);

/**
 * A store in memory: for tests and for embedders who load keys from elsewhere. Nothing
 * survives a restart, and nothing is shared with another process.
 *
 * @example
 * const store = createMemoryKeyStore();
 */
export function createMemoryKeyStore(options: { now?: () => number } = {}): KeyStore {
  const now = options.now ?? Date.now;
  const organisations = new Map<string, Organisation>();
  const keys = new Map<string, ApiKeyRecord>();
  const keysByHash = new Map<string, ApiKeyRecord>();
  const usage = new Map<string, { record: UsageRecord; updatedAt: number }>();
  const daily = new Map<string, number>();
  const audit: AuditEntry[] = [];
  const listeners = new Set<(change: StoreChange) => void>();
  const copyOrganisation = (organisation: Organisation): Organisation => ({ ...organisation, limits: { ...organisation.limits } });
  const copyKey = (key: ApiKeyRecord): ApiKeyRecord => ({
    ...key,
    limits: { ...key.limits },
    allowedModels: key.allowedModels && [...key.allowedModels],
    ...(key.rotation ? { rotation: { ...key.rotation } } : {}),
  });
  const copyUsage = (record: UsageRecord): UsageRecord => ({ ...record, ...(record.daily ? { daily: { ...record.daily } } : {}) });
  const dayKey = (bucket: string, day: string) => `${bucket}\u0000${day}`;
  const addDaily = (bucket: string, day: string, tokens: number) => daily.set(dayKey(bucket, day), (daily.get(dayKey(bucket, day)) ?? 0) + tokens);
  const emit = (change: StoreChange) => {
    for (const listener of listeners) listener(change);
  };

  function requireOrganisation(name: string): Organisation {
    const organisation = organisations.get(name);
    if (organisation === undefined) throw new Error(`There is no organisation named '${name}'.`);
    return organisation;
  }

  function writeOne(record: UsageRecord, updatedAt: number): void {
    const existing = usage.get(record.usageId)?.record;
    if (existing !== undefined && existing.settled && !(existing.abandoned && !record.abandoned && record.settled)) return;
    usage.set(record.usageId, { record: copyUsage(record), updatedAt });
    if (record.daily !== undefined) {
      const before = existing === undefined ? record.daily.charged : dailyShare(existing);
      addDaily(record.daily.bucket, record.daily.day, dailyShare(record) - before);
    }
  }

  return {
    async migrate() {
      return { from: 0, to: 0 };
    },
    async ping() {},
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
      return [...organisations.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map(copyOrganisation);
    },
    async updateOrganisation(name, change) {
      const organisation = requireOrganisation(name);
      if (change.plan !== undefined) organisation.plan = change.plan;
      for (const [field, value] of Object.entries(change.limits ?? {})) {
        if (value !== undefined) organisation.limits[field as keyof Organisation['limits']] = value;
      }
      for (const field of change.resetLimits ?? []) delete organisation.limits[field];
      emit({ kind: 'organisation', name });
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
      return { key: copyKey(key), organisation: copyOrganisation(requireOrganisation(key.organisation)) };
    },
    async listKeys(filter = {}) {
      return [...keys.values()].filter((key) => filter.organisation === undefined || key.organisation === filter.organisation).map(copyKey);
    },
    async revokeKey(id) {
      const key = keys.get(id);
      if (key === undefined) return false;
      key.revoked = true;
      emit({ kind: 'key', hash: key.hash });
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
      emit({ kind: 'key', hash: key.hash });
      return copyKey(key);
    },
    async writeUsage(records) {
      const updatedAt = now();
      for (const record of records) writeOne(record, updatedAt);
    },
    async settleAbandonedUsage(before) {
      let settled = 0;
      for (const { record, updatedAt } of [...usage.values()]) {
        if (record.settled || updatedAt >= before) continue;
        writeOne({ ...record, settled: true, abandoned: true, interrupted: true }, now());
        settled++;
      }
      return settled;
    },
    async summariseUsage({ organisation, since }) {
      const records = [...usage.values()].map((entry) => entry.record);
      return summariseUsageRecords(records.filter((record) => record.organisation === organisation && record.timestamp >= (since ?? 0)), keys);
    },
    async listUsage({ organisation, since }) {
      return [...usage.values()]
        .map((entry) => entry.record)
        .filter((record) => record.organisation === organisation && record.timestamp >= (since ?? 0))
        .map(copyUsage);
    },
    async summariseUsageByDay(filter) {
      return summariseUsageByDay(
        [...usage.values()].map((entry) => entry.record),
        keys,
        filter,
      );
    },
    async writeAudit(entry) {
      audit.push({ ...entry, id: audit.length + 1, details: structuredClone(entry.details), clientRequestId: entry.clientRequestId ?? null });
    },
    async listAudit({ since, limit } = {}) {
      const entries = audit.filter((entry) => entry.at >= (since ?? 0)).reverse();
      return entries.slice(0, Math.min(limit ?? 100, maxAuditEntries)).map((entry) => ({ ...entry, details: structuredClone(entry.details) }));
    },
    async reserveDailyTokens({ bucket, day, tokens, limit }) {
      const total = daily.get(dayKey(bucket, day)) ?? 0;
      if (total + tokens > limit) return { admitted: false, total };
      daily.set(dayKey(bucket, day), total + tokens);
      return { admitted: true, total: total + tokens };
    },
    async addDailyTokens({ bucket, day, tokens }) {
      addDaily(bucket, day, tokens);
    },
    async readDailyTokens({ bucket, day }) {
      return daily.get(dayKey(bucket, day)) ?? 0;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}
