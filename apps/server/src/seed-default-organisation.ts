import { issueApiKey, type KeyStore } from '@quantum-chat/access-control';

/** The organisation made on first start. */
export const defaultOrganisationName = 'default';

/**
 * On first start (an empty store) creates the `default` organisation on the `elite` plan and
 * one test key, and returns that key: the caller shows it once. Returns `undefined` when the
 * store already has organisations, or when another process seeded it first.
 *
 * @example
 * const key = await seedDefaultOrganisation(store);
 * if (key) console.log(key);
 */
export async function seedDefaultOrganisation(store: KeyStore): Promise<string | undefined> {
  if ((await store.listOrganisations()).length > 0) return undefined;
  try {
    await store.createOrganisation({ name: defaultOrganisationName, plan: 'elite' });
  } catch (error) {
    // Two processes started on one empty store at once: the other one seeded it.
    if ((await store.getOrganisation(defaultOrganisationName)) !== undefined) return undefined;
    throw error;
  }
  const { key } = await issueApiKey(store, { organisation: defaultOrganisationName, kind: 'test' });
  return key;
}
