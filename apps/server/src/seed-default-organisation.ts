import type { ServiceStore } from '@quantum-chat/access-control';
import { isAdminError } from './admin/admin-errors.js';
import { createAdminService, type AdminActor } from './admin/admin-service.js';

/** The organisation made on first start. */
const defaultOrganisationName = 'default';

/** Who the audit log says made them. */
const firstStart: AdminActor = { actor: 'server:first-start' };

/**
 * On first start (an empty store) creates the `default` organisation on the `elite` plan and
 * one test key, and returns that key: the caller shows it once. Both are made through the
 * admin service, so the audit log has them like any other change. Returns `undefined` when
 * the store already has organisations, or when another process seeded it first.
 *
 * @example
 * const key = await seedDefaultOrganisation(store);
 * if (key) console.log(key);
 */
export async function seedDefaultOrganisation(store: ServiceStore, now: () => number = Date.now): Promise<string | undefined> {
  if ((await store.listOrganisations()).length > 0) return undefined;
  const admin = createAdminService({ store, modelIds: [], now });
  try {
    await admin.createOrganisation({ name: defaultOrganisationName, plan: 'elite' }, firstStart);
  } catch (error) {
    // Two processes started on one empty store at once: the other one seeded it.
    if (isAdminError(error) && error.code === 'organisation_exists') return undefined;
    throw error;
  }
  return (await admin.createKey({ organisation: defaultOrganisationName, kind: 'test' }, firstStart)).secret;
}
