import type { GenerateId } from '../ids.js';

/** A tool call as it first appears on the wire. */
export interface StartedToolCall {
  index: number;
  id: string;
  name: string;
}

/**
 * Gives each engine tool call a wire index (0, 1, ... in order of first appearance, so parallel
 * calls get distinct, stable indexes) and a `call_` id, whatever indexes the engine used.
 */
export function createToolCallIndexer(generateId: GenerateId) {
  const byEngineIndex = new Map<number, StartedToolCall>();
  return {
    /** The call an engine index refers to, and whether this fragment starts it. */
    resolve(engineIndex: number, name: string | undefined): { call: StartedToolCall; started: boolean } {
      const known = byEngineIndex.get(engineIndex);
      if (known !== undefined) return { call: known, started: false };
      const call = { index: byEngineIndex.size, id: generateId('tool-call'), name: name ?? '' };
      byEngineIndex.set(engineIndex, call);
      return { call, started: true };
    },
    /** A method, not a getter: a getter in an object literal costs a hidden class per object. */
    count(): number {
      return byEngineIndex.size;
    },
  };
}

/** The indexer of one answer's tool calls. */
export type ToolCallIndexer = ReturnType<typeof createToolCallIndexer>;
