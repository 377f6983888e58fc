import type { ApiKeyRecord, ServiceStore } from '@quantum-chat/access-control';
import { seedDefaultOrganisation } from './seed-default-organisation.js';

/** What a start found in the key store, for the start-up messages. */
export interface StarterKeys {
  /** The test key made for the `default` organisation because the store was empty: show it once. */
  createdKey?: string;
  /** Organisations with no key that works now (none made, all revoked or expired). */
  organisationsWithoutUsableKey: string[];
}

/** A key that would be accepted now: not revoked, not expired. */
function isUsableKey(key: ApiKeyRecord, now: number): boolean {
  if (key.revoked) return false;
  // Keys may carry an expiry time (decisions §6); stores without one never expire.
  const expiresAt = (key as { expiresAt?: number | null }).expiresAt;
  return expiresAt === undefined || expiresAt === null || expiresAt > now;
}

/**
 * Run once the server listens (so that a start that cannot bind makes no key it could not
 * show): seeds an empty store with the `default` organisation and one test key, and names the
 * organisations that have no usable key.
 *
 * @example
 * const { createdKey, organisationsWithoutUsableKey } = await prepareStarterKeys(store);
 */
export async function prepareStarterKeys(store: ServiceStore, now = Date.now()): Promise<StarterKeys> {
  const createdKey = await seedDefaultOrganisation(store);
  const usable = new Set((await store.listKeys()).filter((key) => isUsableKey(key, now)).map((key) => key.organisation));
  const organisationsWithoutUsableKey = (await store.listOrganisations()).map((organisation) => organisation.name).filter((name) => !usable.has(name));
  return { ...(createdKey !== undefined ? { createdKey } : {}), organisationsWithoutUsableKey };
}
