/** Gives each tool-call fragment a stable index. @internal */
export interface ToolCallIndexer {
  /** The index of the call a fragment belongs to, from its wire `index`, `id` and `name`. */
  resolve(fragment: { index?: number | undefined; id?: string | undefined; name?: string | undefined }): number;
}

/**
 * Resolves the call a tool-call fragment belongs to when servers disagree on `index`:
 *
 * - our server and OpenAI: `index` on every fragment, `id` on the first → the wire index;
 * - ids repeated on every fragment → the id's call;
 * - parallel calls that all say `index: 0` but carry distinct ids → one call per id;
 * - no `index` at all → the id's call, a new call when a `name` arrives, else the latest call.
 *
 * The wire index is kept whenever no other call has claimed it, so well-formed streams keep
 * their indexes.
 *
 * @internal
 */
export function createToolCallIndexer(): ToolCallIndexer {
  const indexById = new Map<string, number>();
  const idByIndex = new Map<number, string>();
  const indexByWireIndex = new Map<number, number>();
  let nextIndex = 0;
  let latest: number | undefined;

  function resolve(fragment: { index?: number | undefined; id?: string | undefined; name?: string | undefined }): number {
    const wire = fragment.index !== undefined && Number.isInteger(fragment.index) && fragment.index >= 0 ? fragment.index : undefined;
    const id = fragment.id === '' ? undefined : fragment.id;
    let index: number;
    if (id !== undefined && indexById.has(id)) {
      index = indexById.get(id)!;
    } else if (id !== undefined) {
      // A new id: keep its wire index unless another id already owns it.
      const candidate = wire === undefined ? undefined : indexByWireIndex.get(wire) ?? wire;
      index = candidate !== undefined && !idByIndex.has(candidate) ? candidate : nextIndex;
      indexById.set(id, index);
      idByIndex.set(index, id);
    } else if (wire !== undefined) {
      index = indexByWireIndex.get(wire) ?? wire;
    } else {
      index = fragment.name !== undefined && fragment.name !== '' ? nextIndex : latest ?? nextIndex;
    }
    if (wire !== undefined) indexByWireIndex.set(wire, index);
    nextIndex = Math.max(nextIndex, index + 1);
    latest = index;
    return index;
  }

  return { resolve };
}
