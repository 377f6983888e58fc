// API keys: their hashes, never their secrets (decisions §6).
import type { ApiKeyKind } from '@quantum-chat/core';
import type { LimitOverrides } from '../plan-limits.js';
import type { Organisation } from './organisations.js';

/**
 * A stored API key. The secret itself is never stored: only its SHA-256 (hex), and the
 * prefix and last 4 characters for display (decisions §6).
 */
export interface ApiKeyRecord {
  /** A public id (`key_…`), used by `keys revoke <id>`. */
  id: string;
  organisation: string;
  kind: ApiKeyKind;
  /** SHA-256 of the whole key, lower-case hex. */
  hash: string;
  /** The key's prefix (`qc_live_`), for display. */
  prefix: string;
  /** The key's last 4 characters, for display. */
  last4: string;
  /** The key is only valid with a good `X-Service-Signature` (decisions §7). */
  requireSignature: boolean;
  revoked: boolean;
  createdAt: number;
  /** When the key stops working (ms since the epoch); `null`: never. */
  expiresAt: number | null;
  /** The models the key may use; `null`: every model its plan allows. */
  allowedModels: string[] | null;
  /** The key's own limits within its organisation's (a missing field: the organisation's). */
  limits: LimitOverrides;
  /**
   * Set once the key was rotated: it works until its overlap ends (`expiresAt`), and that end
   * may come sooner but never later (decisions §9). Absent: never rotated.
   */
  rotation?: KeyRotation;
}

/** When a key was rotated, and the key that replaced it. */
export interface KeyRotation {
  /** ms since the epoch. */
  at: number;
  /** The id of the key the rotation issued. */
  replacedBy: string;
}

/** A key found by its hash, with its organisation. */
export interface ResolvedApiKey {
  key: ApiKeyRecord;
  organisation: Organisation;
}

/** A change to a key. A field left out is left alone. */
export interface KeyChange {
  /** When the key stops working (ms since the epoch); `null`: never. */
  expiresAt?: number | null;
  /** The models the key may use; `null`: every model its plan allows. */
  allowedModels?: readonly string[] | null;
  /** The key's own limits to set (merged like an organisation's). */
  limits?: LimitOverrides;
  /** The key's own limits to drop: the organisation's alone apply then. */
  resetLimits?: readonly (keyof LimitOverrides)[];
  /** Records that the key was rotated (the last rotation is kept). */
  rotation?: KeyRotation;
}

export interface NewApiKeyRecord {
  organisation: string;
  kind: ApiKeyKind;
  hash: string;
  prefix: string;
  last4: string;
  requireSignature?: boolean;
  expiresAt?: number | null;
  allowedModels?: readonly string[] | null;
  limits?: LimitOverrides;
}

/** Where keys live. */
export interface ApiKeyStore {
  /** Stores a key's hash; the organisation must exist. */
  createKey(input: NewApiKeyRecord): Promise<ApiKeyRecord>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this SHA-256 hex and its organisation, revoked or not. */
  findKeyByHash(hash: string): Promise<ResolvedApiKey | undefined>;
  listKeys(filter?: { organisation?: string }): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked (and tells every subscriber); false when there is no such key. */
  revokeKey(id: string): Promise<boolean>;
  /**
   * Changes a key's expiry, allowed models or own limits (and tells every subscriber, so
   * caches drop it); `undefined` when there is no such key.
   */
  updateKey(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined>;
}
