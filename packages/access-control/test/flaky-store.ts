import type { ServiceStore } from '../src/service-store/index.js';

/** A store that can be switched off: every call then rejects (`down`) or never answers (`hung`). */
export function createFlakyStore(inner: ServiceStore): { store: ServiceStore; set(state: 'up' | 'down' | 'hung'): void; calls: Record<string, number> } {
  let state: 'up' | 'down' | 'hung' = 'up';
  const calls: Record<string, number> = {};
  const store = new Proxy(inner, {
    get(target, property: string) {
      const value = (target as unknown as Record<string, unknown>)[property];
      if (typeof value !== 'function' || property === 'subscribe' || property === 'close') return value;
      return (...args: unknown[]) => {
        calls[property] = (calls[property] ?? 0) + 1;
        if (state === 'down') return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
        if (state === 'hung') return new Promise(() => undefined);
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, set: (next) => void (state = next), calls };
}
