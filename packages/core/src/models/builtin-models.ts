import type { Plan } from '../schemas/model.js';

/** What the registry knows of a model besides its engine. */
export interface ModelInfo {
  id: string;
  /** `null` when any plan may use it; `"elite"` for quantum-pro (spec 2.1). */
  requiresPlan: Exclude<Plan, 'free'> | null;
  /** Whether answers carry a reasoning trace (only quantum-reasoner). */
  reasoning: boolean;
  /** The model's `owned_by`; the registry's one value (spec 2.2) when absent. */
  ownedBy?: string;
}

/** The four models in spec order (spec 2.1, 2.3). */
export const builtinModels: readonly ModelInfo[] = [
  { id: 'quantum-lite', requiresPlan: null, reasoning: false },
  { id: 'quantum-flash', requiresPlan: null, reasoning: false },
  { id: 'quantum-reasoner', requiresPlan: null, reasoning: true },
  { id: 'quantum-pro', requiresPlan: 'elite', reasoning: false },
];

/** The `owned_by` value of every built-in model unless configured. */
export const defaultOwnedBy = 'quantum';
