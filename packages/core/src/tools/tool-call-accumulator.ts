import { randomBase62 } from '../ids.js';
import { createToolCallTracker, type TrackedToolCall } from '../dialect/tool-call-tracker.js';
import type { ToolCall, ToolCallDelta } from '../schemas/tool-call.js';

/** Rebuilds complete tool calls from the `delta.tool_calls` fragments of a stream. */
export interface ToolCallAccumulator {
  /** Merges one fragment into the call it belongs to, or starts a new call. */
  add(delta: ToolCallDelta): void;
  /** `add` for each fragment of one chunk, in order. */
  addAll(deltas: readonly ToolCallDelta[]): void;
  /**
   * The calls so far, in the order of their `index` (a call whose index another call already
   * held, or that came without one, gets the next free position). A
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

const defaultGenerateId = (): string => 'call_' + randomBase62(24);

/**
 * Creates an accumulator that merges streamed tool-call fragments, whichever way the server
 * splits them, with the toolkit's one tool-call tracker (see `createToolCallTracker` in
 * `@quantum-chat/core/dialect` for the rules): by `id`, then by `index`, then the latest call;
 * two whole calls without `id` or `index` stay two calls.
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
  const tracker = createToolCallTracker();
  /** Ids made for calls the server sent without one, made once so that they stay the same. */
  const generatedIds = new Map<TrackedToolCall, string>();

  function add(delta: ToolCallDelta): void {
    const part = delta.function;
    const raw = part?.arguments;
    tracker.track(
      Number.isSafeInteger(delta.index) && (delta.index as number) >= 0 ? (delta.index as number) : undefined,
      typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined,
      typeof part?.name === 'string' && part.name !== '' ? part.name : undefined,
      raw === null || raw === undefined ? undefined : typeof raw === 'string' ? raw : JSON.stringify(raw),
    );
  }

  function idOf(call: TrackedToolCall): string {
    if (call.id !== undefined) return call.id;
    let id = generatedIds.get(call);
    if (id === undefined) generatedIds.set(call, (id = generateId()));
    return id;
  }

  return {
    add,
    addAll(deltas) {
      for (const delta of deltas) add(delta);
    },
    calls() {
      return tracker.calls().map((call) => ({
        id: idOf(call),
        type: 'function' as const,
        function: { name: call.name ?? '', arguments: call.hasArguments ? call.arguments : '{}' },
      }));
    },
    get size() {
      return tracker.count();
    },
  };
}
