import { randomBase62 } from '../ids.js';
import type { ToolCall, ToolCallDelta } from '../schemas/tool-call.js';

/** Rebuilds complete tool calls from the `delta.tool_calls` fragments of a stream. */
export interface ToolCallAccumulator {
  /** Merges one fragment into the call it belongs to, or starts a new call. */
  add(delta: ToolCallDelta): void;
  /** `add` for each fragment of one chunk, in order. */
  addAll(deltas: readonly ToolCallDelta[]): void;
  /**
   * The calls so far, ordered by `index` (calls without one last), then by first appearance. A
   * call whose fragments never carried `arguments` gets `"{}"`; one that did keeps what arrived,
   * even `""`. A call without an id gets one from `generateId`, once, so ids are stable.
   */
  calls(): ToolCall[];
  /** How many calls have been started. */
  readonly size: number;
}

/** Options of {@link createToolCallAccumulator}. */
export interface ToolCallAccumulatorOptions {
  /** Makes an id for a call the server sent without one. Default: `call_` + 24 random base62 characters. */
  generateId?: () => string;
}

interface PendingCall {
  /** The server's id, if any fragment carried one. */
  id: string | undefined;
  generatedId: string | undefined;
  index: number | undefined;
  /** Position of first appearance: breaks ties in the output order. */
  order: number;
  name: string;
  arguments: string;
  hasArguments: boolean;
}

const defaultGenerateId = (): string => 'call_' + randomBase62(24);

/**
 * Creates an accumulator that merges streamed tool-call fragments, whichever way the server
 * splits them. A fragment goes to the call with the same `id`; a new non-empty `id` starts a new
 * call (even at an `index` already taken: some servers send `index: 0` for every parallel call);
 * a fragment without an id goes to the latest call at its `index`, or starts one there; a
 * fragment with neither goes to the call the previous fragment went to.
 *
 * Names are taken from the first fragment that has one, never concatenated. `arguments` strings
 * are concatenated; object arguments are `JSON.stringify`'d first; a fragment that repeats the
 * whole arguments string after it is already a complete JSON object (a resend some servers make
 * on the last chunk) is ignored.
 *
 * @example
 * const accumulator = createToolCallAccumulator();
 * accumulator.add({ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } });
 * accumulator.add({ index: 0, function: { arguments: '{"city":' } });
 * accumulator.add({ index: 0, function: { arguments: '"Oslo"}' } });
 * accumulator.calls(); // [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }]
 */
export function createToolCallAccumulator(options: ToolCallAccumulatorOptions = {}): ToolCallAccumulator {
  const generateId = options.generateId ?? defaultGenerateId;
  const pendingCalls: PendingCall[] = [];
  const byId = new Map<string, PendingCall>();
  /** The latest call started (or given its id) at each index. */
  const byIndex = new Map<number, PendingCall>();
  let latest: PendingCall | undefined;

  function start(id: string | undefined, index: number | undefined): PendingCall {
    const call: PendingCall = {
      id,
      generatedId: undefined,
      index,
      order: pendingCalls.length,
      name: '',
      arguments: '',
      hasArguments: false,
    };
    pendingCalls.push(call);
    if (id !== undefined) byId.set(id, call);
    if (index !== undefined) byIndex.set(index, call);
    return call;
  }

  function find(delta: ToolCallDelta): PendingCall {
    const id = delta.id === null || delta.id === undefined || delta.id === '' ? undefined : delta.id;
    const index = delta.index ?? undefined;
    if (id !== undefined) {
      const known = byId.get(id);
      if (known !== undefined) return known;
      // A call started without an id (its first fragment lacked one) adopts the id at its index.
      const atIndex = index === undefined ? undefined : byIndex.get(index);
      if (atIndex !== undefined && atIndex.id === undefined) {
        atIndex.id = id;
        byId.set(id, atIndex);
        return atIndex;
      }
      return start(id, index);
    }
    if (index !== undefined) return byIndex.get(index) ?? start(undefined, index);
    return latest ?? start(undefined, undefined);
  }

  function add(delta: ToolCallDelta): void {
    const call = find(delta);
    latest = call;
    const part = delta.function;
    if (part === null || part === undefined) return;
    if (call.name === '' && typeof part.name === 'string') call.name = part.name;
    const raw = part.arguments;
    if (raw === null || raw === undefined) return;
    const piece = typeof raw === 'string' ? raw : JSON.stringify(raw);
    call.hasArguments = true;
    if (piece === call.arguments && isCompleteJsonObject(piece)) return;
    call.arguments += piece;
  }

  return {
    add,
    addAll(deltas) {
      for (const delta of deltas) add(delta);
    },
    calls() {
      const sorted = pendingCalls.slice().sort(compareCalls);
      return sorted.map((call) => ({
        id: call.id ?? (call.generatedId ??= generateId()),
        type: 'function' as const,
        function: { name: call.name, arguments: call.hasArguments ? call.arguments : '{}' },
      }));
    },
    get size() {
      return pendingCalls.length;
    },
  };
}

function compareCalls(left: PendingCall, right: PendingCall): number {
  const leftIndex = left.index ?? Number.POSITIVE_INFINITY;
  const rightIndex = right.index ?? Number.POSITIVE_INFINITY;
  if (leftIndex !== rightIndex) return leftIndex < rightIndex ? -1 : 1;
  return left.order - right.order;
}

/**
 * The text is a whole JSON object. Only objects count: a resent `"1"` after `"1"` may be the
 * number 11 being streamed, but two objects side by side are never valid arguments.
 */
function isCompleteJsonObject(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.charCodeAt(0) !== 123 /* { */) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
