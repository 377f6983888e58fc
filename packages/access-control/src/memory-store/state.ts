// What the memory store's concerns share: its maps, its clock and its listeners.
import type { ApiKeyRecord, AuditEntry, Organisation, StoreChange, UsageRecord } from '../service-store/index.js';

/** @internal */
export interface MemoryState {
  now: () => number;
  organisations: Map<string, Organisation>;
  keys: Map<string, ApiKeyRecord>;
  keysByHash: Map<string, ApiKeyRecord>;
  usage: Map<string, { record: UsageRecord; updatedAt: number }>;
  /** Daily token counts by `dayKey(bucket, day)`. */
  daily: Map<string, number>;
  audit: AuditEntry[];
  listeners: Set<(change: StoreChange) => void>;
}

/** @internal */
export function createMemoryState(now: () => number): MemoryState {
  return { now, organisations: new Map(), keys: new Map(), keysByHash: new Map(), usage: new Map(), daily: new Map(), audit: [], listeners: new Set() };
}

/** @internal */
export const dayKey = (bucket: string, day: string) => `${bucket}\u0000${day}`;

/** Adds (or, negative, takes back) tokens to a day's count. @internal */
export function addDaily(state: MemoryState, bucket: string, day: string, tokens: number): void {
  state.daily.set(dayKey(bucket, day), (state.daily.get(dayKey(bucket, day)) ?? 0) + tokens);
}

/** @internal */
export function emit(state: MemoryState, change: StoreChange): void {
  for (const listener of state.listeners) listener(change);
}

/** @internal */
export const copyOrganisation = (organisation: Organisation): Organisation => ({ ...organisation, limits: { ...organisation.limits } });

/** @internal */
export const copyKey = (key: ApiKeyRecord): ApiKeyRecord => ({
  ...key,
  limits: { ...key.limits },
  allowedModels: key.allowedModels && [...key.allowedModels],
  ...(key.rotation ? { rotation: { ...key.rotation } } : {}),
});

/** @internal */
export function requireOrganisation(state: MemoryState, name: string): Organisation {
  const organisation = state.organisations.get(name);
  if (organisation === undefined) throw new Error(`There is no organisation named '${name}'.`);
  return organisation;
}
