/** One tool call as the tracker has rebuilt it so far. */
export interface TrackedToolCall {
  /**
   * The call's stable position: its wire `index` when no other call holds that one, else the
   * next free position. Well-formed streams keep their indexes; every call has its own.
   */
  readonly index: number;
  /** The server's id, from the first fragment that carried a non-empty one. */
  id: string | undefined;
  /** The function name, from the first fragment that carried a non-empty one (never concatenated). */
  name: string | undefined;
  /** The argument pieces so far, joined (objects were `JSON.stringify`'d). */
  arguments: string;
  /** A fragment carried `arguments` (even `""`). */
  hasArguments: boolean;
}

/** Finds the call each streamed tool-call fragment belongs to, whatever the server's dialect. */
export interface ToolCallTracker {
  /**
   * Adds one fragment (its `index`, `id`, `function.name` and `function.arguments`, already read
   * off the wire: `undefined` for absent, null or empty) to the call it belongs to, or starts one.
   * Returns that call; {@link ToolCallTracker.appended} is the argument text this fragment added.
   */
  track(wireIndex: number | undefined, id: string | undefined, name: string | undefined, argumentsPiece: string | undefined): TrackedToolCall;
  /** The argument text the last `track` added: `''` for none, or for a resend of the whole arguments. */
  appended(): string;
  /** Every call started, ordered by {@link TrackedToolCall.index}. */
  calls(): TrackedToolCall[];
  /** How many calls have been started. */
  count(): number;
}

/**
 * Creates the one tool-call tracker of the toolkit (the client, the upstream engine and the
 * public accumulator all use it). A fragment belongs to:
 *
 * 1. the call with its `id`, when that id was seen before (ids repeated on every fragment);
 * 2. for a new id: the latest call at its `index` if that call has no id yet (it adopts this
 *    one), else a new call (some servers send `index: 0` for every parallel call);
 * 3. without an id: the latest call at its `index`, or a new call there;
 * 4. with neither: the latest call, except that a `name` starts a new call once the latest has a
 *    name and either another name or complete JSON arguments (two index-less calls sent whole
 *    are two calls, while a name repeated on every piece of one call stays one call).
 *
 * Arguments are concatenated, except a piece equal to everything the call already has when
 * that is a complete JSON object: a resend some servers make at the end, ignored.
 *
 * @example
 * const tracker = createToolCallTracker();
 * tracker.track(0, 'call_1', 'get_weather', '');
 * tracker.track(0, undefined, undefined, '{"city":"Oslo"}');
 * tracker.calls(); // [{ index: 0, id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', hasArguments: true }]
 */
export function createToolCallTracker(): ToolCallTracker {
  const calls: TrackedToolCall[] = [];
  // Made with the first call: most answers have none, and every relayed answer has a tracker.
  let byId: Map<string, TrackedToolCall> | undefined;
  /** The latest call started at each wire index. */
  let byWireIndex: Map<number, TrackedToolCall> | undefined;
  let taken: Set<number> | undefined;
  let nextFree = 0;
  let latest: TrackedToolCall | undefined;
  let lastAppended = '';

  function start(wireIndex: number | undefined, id: string | undefined): TrackedToolCall {
    taken ??= new Set();
    byId ??= new Map();
    byWireIndex ??= new Map();
    let index = wireIndex !== undefined && !taken.has(wireIndex) ? wireIndex : nextFree;
    while (taken.has(index)) index++;
    taken.add(index);
    if (index >= nextFree) nextFree = index + 1;
    const call: TrackedToolCall = { index, id, name: undefined, arguments: '', hasArguments: false };
    calls.push(call);
    if (id !== undefined) byId.set(id, call);
    if (wireIndex !== undefined) byWireIndex.set(wireIndex, call);
    return call;
  }

  function find(wireIndex: number | undefined, id: string | undefined, name: string | undefined): TrackedToolCall {
    if (id !== undefined) {
      const known = byId?.get(id);
      if (known !== undefined) return known;
      const atIndex = wireIndex === undefined ? undefined : byWireIndex?.get(wireIndex);
      if (atIndex !== undefined && atIndex.id === undefined) {
        atIndex.id = id;
        byId!.set(id, atIndex);
        return atIndex;
      }
      return start(wireIndex, id);
    }
    if (wireIndex !== undefined) return byWireIndex?.get(wireIndex) ?? start(wireIndex, undefined);
    if (latest === undefined) return start(undefined, undefined);
    if (name !== undefined && latest.name !== undefined && (name !== latest.name || isCompleteJsonObject(latest.arguments))) return start(undefined, undefined);
    return latest;
  }

  function track(wireIndex: number | undefined, id: string | undefined, name: string | undefined, argumentsPiece: string | undefined): TrackedToolCall {
    const call = find(wireIndex, id, name);
    latest = call;
    if (call.name === undefined && name !== undefined) call.name = name;
    lastAppended = '';
    if (argumentsPiece !== undefined) {
      call.hasArguments = true;
      if (argumentsPiece !== '' && !(argumentsPiece === call.arguments && isCompleteJsonObject(argumentsPiece))) {
        call.arguments += argumentsPiece;
        lastAppended = argumentsPiece;
      }
    }
    return call;
  }

  return {
    track,
    appended: () => lastAppended,
    calls: () => calls.slice().sort((left, right) => left.index - right.index),
    count: () => calls.length,
  };
}

/**
 * The text is a whole JSON object. Only objects count: a resent `"1"` after `"1"` may be the
 * number 11 being streamed, but two objects side by side are never valid arguments.
 */
function isCompleteJsonObject(text: string): boolean {
  const trimmed = text.trim();
  // Cheap first: most pieces of arguments being streamed do not end the object.
  if (trimmed.charCodeAt(0) !== 123 /* { */ || trimmed.charCodeAt(trimmed.length - 1) !== 125 /* } */) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
