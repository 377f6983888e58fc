// Organisations: the owners of keys, with a plan and limit overrides.
import type { Plan } from '@quantum-chat/core';
import type { LimitOverrides } from '../plan-limits.js';

/** An organisation: the owner of keys, with a plan and optional limit overrides. */
export interface Organisation {
  /** Unique and stable; what the CLI and the limits are keyed by. */
  name: string;
  plan: Plan;
  limits: LimitOverrides;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** A change to an organisation. */
export interface OrganisationChange {
  plan?: Plan;
  limits?: LimitOverrides;
  resetLimits?: readonly (keyof LimitOverrides)[];
}

/** Where organisations live. */
export interface OrganisationStore {
  /** Creates an organisation; throws if the name is taken. */
  createOrganisation(input: { name: string; plan: Plan; limits?: LimitOverrides }): Promise<Organisation>;
  getOrganisation(name: string): Promise<Organisation | undefined>;
  listOrganisations(): Promise<Organisation[]>;
  /**
   * Changes the plan and merges limit overrides (a field set to `undefined` is left alone);
   * `resetLimits` drops overrides, so that those limits follow the plan again.
   */
  updateOrganisation(name: string, change: OrganisationChange): Promise<Organisation>;
}
