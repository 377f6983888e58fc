import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ModelInfo } from './builtin-models.js';

/** At most this many ids are listed in the message; the rest are in `GET /models`. */
const maxListedIds = 20;
/** Longer asked-for ids are compared by this many characters: the distance is quadratic. */
const maxComparedLength = 100;

/** Edit distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The model id closest to what was asked for, ignoring case, if it is close enough to be a
 * likely typo (at most a third of its characters differ); `undefined` otherwise.
 */
function nearestModelId(asked: string, models: readonly ModelInfo[]): string | undefined {
  const wanted = asked.slice(0, maxComparedLength).toLowerCase();
  let best: { id: string; distance: number } | undefined;
  for (const model of models) {
    const distance = editDistance(wanted, model.id.toLowerCase());
    if (best === undefined || distance < best.distance) best = { id: model.id, distance };
  }
  if (best === undefined || best.distance > Math.max(1, Math.floor(Math.max(wanted.length, best.id.length) / 3))) return undefined;
  return best.id;
}

/**
 * The 404 `model_not_found` for an unknown id: the valid ids are listed, and the nearest one
 * suggested when the asked-for id looks like a typo of it.
 *
 * @example
 * throw modelNotFoundError('quantum-lte', registry.list());
 * // The model 'quantum-lte' does not exist. Did you mean 'quantum-lite'? Available models: quantum-lite, …
 */
export function modelNotFoundError(asked: string, models: readonly ModelInfo[]): QuantumChatError {
  const nearest = nearestModelId(asked, models);
  const ids = models.slice(0, maxListedIds).map((model) => model.id);
  const more = models.length > maxListedIds ? ` and ${models.length - maxListedIds} more (see GET /models)` : '';
  const suggestion = nearest === undefined ? '' : ` Did you mean '${nearest}'?`;
  const listing = ids.length === 0 ? ' No models are configured.' : ` Available models: ${ids.join(', ')}${more}.`;
  return new QuantumChatError('model_not_found', `The model '${asked.slice(0, maxComparedLength)}' does not exist.${suggestion}${listing}`, { param: 'model' });
}
