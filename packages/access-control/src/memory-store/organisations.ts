import type { Organisation, OrganisationStore } from '../service-store/index.js';
import { copyOrganisation, emit, requireOrganisation, type MemoryState } from './state.js';

/** Organisations in a map. @internal */
export function createMemoryOrganisations(state: MemoryState): OrganisationStore {
  const { organisations } = state;
  return {
    async createOrganisation({ name, plan, limits }) {
      if (organisations.has(name)) throw new Error(`The organisation '${name}' already exists.`);
      const organisation: Organisation = { name, plan, limits: { ...limits }, createdAt: state.now() };
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
      const organisation = requireOrganisation(state, name);
      if (change.plan !== undefined) organisation.plan = change.plan;
      for (const [field, value] of Object.entries(change.limits ?? {})) {
        if (value !== undefined) organisation.limits[field as keyof Organisation['limits']] = value;
      }
      for (const field of change.resetLimits ?? []) delete organisation.limits[field];
      emit(state, { kind: 'organisation', name });
      return copyOrganisation(organisation);
    },
  };
}
