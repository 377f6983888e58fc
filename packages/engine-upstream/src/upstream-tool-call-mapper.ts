import type { ChatEngineEvent, ToolCallDelta } from '@quantum-chat/core';

type ToolCallEvent = Extract<ChatEngineEvent, { type: 'tool-call' }>;

interface TrackedCall {
  /** Our index: 0, 1, ... in order of first appearance. */
  index: number;
  upstreamIndex: number | undefined;
  id: string | undefined;
  name: string | undefined;
  /** Arguments that arrived before the name, held until the first event can carry it. */
  pendingArguments: string;
  announced: boolean;
}

/** Maps upstream tool-call deltas to engine events. */
export interface UpstreamToolCallMapper {
  /** The events for one upstream `delta.tool_calls` array. */
  push(deltas: readonly ToolCallDelta[]): ToolCallEvent[];
  /** Events for calls whose name never arrived (announced with an empty name). */
  end(): ToolCallEvent[];
  /** How many calls were seen. */
  readonly count: number;
}

function argumentsText(value: ToolCallDelta['function']): string {
  const args = value?.arguments;
  if (args === undefined || args === null) return '';
  // Some runtimes send the arguments as an object; our wire always carries a JSON string.
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/**
 * Keeps index discipline whatever the upstream sends: a call is found by its `id` first, then by
 * its `index`, then it is the latest call. So ids repeated on every delta, a whole call in one
 * delta, parallel calls that share an index but not an id, and deltas without `index` all come
 * out as calls 0, 1, ... whose first event carries the name.
 *
 * @example
 * const mapper = createUpstreamToolCallMapper();
 * mapper.push([{ index: 0, id: 'call_1', function: { name: 'f', arguments: { a: 1 } } }]);
 * // [{ type: 'tool-call', index: 0, name: 'f', argumentsDelta: '{"a":1}' }]
 */
export function createUpstreamToolCallMapper(): UpstreamToolCallMapper {
  const calls: TrackedCall[] = [];

  /** The latest call at an upstream index (a runtime may reuse one index for parallel calls). */
  function lastAt(upstreamIndex: number): TrackedCall | undefined {
    for (let position = calls.length - 1; position >= 0; position--) {
      if (calls[position]!.upstreamIndex === upstreamIndex) return calls[position];
    }
    return undefined;
  }

  function find(delta: ToolCallDelta): TrackedCall | undefined {
    const id = delta.id ?? undefined;
    const upstreamIndex = delta.index ?? undefined;
    if (id !== undefined && id !== '') {
      const byId = calls.find((call) => call.id === id);
      if (byId !== undefined) return byId;
      // A new id at a known index is a new call unless that call never had an id.
      const byIndex = upstreamIndex === undefined ? undefined : lastAt(upstreamIndex);
      return byIndex !== undefined && byIndex.id === undefined ? byIndex : undefined;
    }
    if (upstreamIndex !== undefined) return lastAt(upstreamIndex);
    const latest = calls.at(-1);
    // Without id or index, a name on a delta starts a new call once the latest has one.
    if (latest !== undefined && delta.function?.name && latest.name !== undefined) return undefined;
    return latest;
  }

  function push(deltas: readonly ToolCallDelta[]): ToolCallEvent[] {
    const events: ToolCallEvent[] = [];
    for (const delta of deltas) {
      let call = find(delta);
      if (call === undefined) {
        call = { index: calls.length, upstreamIndex: undefined, id: undefined, name: undefined, pendingArguments: '', announced: false };
        calls.push(call);
      }
      call.upstreamIndex ??= delta.index ?? undefined;
      if (delta.id) call.id ??= delta.id;
      // Names are whole on every runtime we know; a name repeated on later deltas is ignored.
      if (delta.function?.name) call.name ??= delta.function.name;
      const text = argumentsText(delta.function);
      if (call.announced) {
        if (text !== '') events.push({ type: 'tool-call', index: call.index, argumentsDelta: text });
      } else if (call.name === undefined) {
        call.pendingArguments += text;
      } else {
        call.announced = true;
        events.push({ type: 'tool-call', index: call.index, name: call.name, argumentsDelta: call.pendingArguments + text });
        call.pendingArguments = '';
      }
    }
    return events;
  }

  function end(): ToolCallEvent[] {
    return calls
      .filter((call) => !call.announced)
      .map((call) => {
        call.announced = true;
        return { type: 'tool-call', index: call.index, name: call.name ?? '', argumentsDelta: call.pendingArguments };
      });
  }

  return {
    push,
    end,
    get count() {
      return calls.length;
    },
  };
}
