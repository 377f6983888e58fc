import type { ChangeFeed } from '../service-store/index.js';
import type { MemoryState } from './state.js';

/** Changes heard in this process only: nothing else shares the maps. @internal */
export function createMemoryChangeFeed(state: MemoryState): ChangeFeed {
  return {
    subscribe(listener) {
      state.listeners.add(listener);
      return () => void state.listeners.delete(listener);
    },
  };
}
